import PerfReport
import Testing

@testable import PerfStatistics

@Suite struct SampleStatisticsTests {
    @Test func handComputedValues() {
        // Sorted: 1 1 2 3 4 5 6 9 (n = 8).
        // mean = 31 / 8 = 3.875; median = (3 + 4) / 2 = 3.5.
        // Squared deviations from the mean sum to 52.875, so sd = √(52.875 / 7) = 2.748376…, CV = sd / 3.875.
        // |x − 3.5| sorted: .5 .5 1.5 1.5 2.5 2.5 2.5 5.5, so MAD = (1.5 + 2.5) / 2 = 2.
        // p90: h = 7 · 0.9 = 6.3, x[6] + 0.3 · (x[7] − x[6]) = 6 + 0.3 · 3 = 6.9.
        // p99: h = 6.93, 6 + 0.93 · 3 = 8.79. (numpy.quantile agrees with all of these.)
        // Q1: h = 1.75 → 1.75; Q3: h = 5.25 → 5.25; IQR 3.5; fences −3.5 / 10.5: no outliers.
        let stats = SampleStatistics.summarize([3, 1, 4, 1, 5, 9, 2, 6])
        #expect(stats.count == 8)
        #expect(stats.min == 1)
        #expect(stats.max == 9)
        #expect(stats.mean == 3.875)
        #expect(stats.median == 3.5)
        #expect(abs(stats.standardDeviation - 2.748376143938713) < 1e-12)
        #expect(abs(stats.coefficientOfVariation - 2.748376143938713 / 3.875) < 1e-12)
        #expect(stats.medianAbsoluteDeviation == 2)
        #expect(abs(stats.p90 - 6.9) < 1e-12)
        #expect(abs(stats.p99 - 8.79) < 1e-12)
        #expect(stats.outliers == OutlierCounts())
        #expect(stats.medianConfidenceInterval.level == 0.95)
    }

    @Test func quantileInterpolatesBetweenClosestRanks() {
        let sorted: [Double] = [10, 20, 30, 40]
        #expect(SampleStatistics.quantile(sorted, 0) == 10)
        #expect(SampleStatistics.quantile(sorted, 1) == 40)
        // h = 3 · 0.5 = 1.5 → 20 + 0.5 · 10.
        #expect(SampleStatistics.quantile(sorted, 0.5) == 25)
        // h = 3 · 0.25 = 0.75 → 10 + 0.75 · 10.
        #expect(SampleStatistics.quantile(sorted, 0.25) == 17.5)
        #expect(SampleStatistics.quantile([7], 0.9) == 7)
    }

    @Test func medianOfUnsortedValues() {
        #expect(SampleStatistics.median([5, 1, 3]) == 3)
        #expect(SampleStatistics.median([4, 1, 3, 2]) == 2.5)
    }

    @Test func tukeyFenceOutlierCounts() {
        // Sorted: 60 90 100 101 … 109 125 200 (n = 14).
        // Q1: h = 13 · 0.25 = 3.25 → 101 + 0.25 = 101.25; Q3: h = 9.75 → 107 + 0.75 = 107.75; IQR = 6.5.
        // Mild fences 91.5 / 117.5, severe fences 81.75 / 127.25:
        // 60 low severe, 90 low mild, 125 high mild, 200 high severe.
        let values: [Double] = [200, 60, 90, 125] + (100...109).map(Double.init)
        let stats = SampleStatistics.summarize(values)
        #expect(stats.outliers == OutlierCounts(lowSevere: 1, lowMild: 1, highMild: 1, highSevere: 1))
        #expect(stats.outliers.total == 4)
        // Reported, never dropped.
        #expect(stats.count == 14)
        #expect(stats.min == 60)
        #expect(stats.max == 200)
    }

    @Test func valueOnAFenceIsNotAnOutlier() {
        // 1 2 3 4 7: Q1 (h = 1) = 2, Q3 (h = 3) = 4, IQR = 2, upper mild fence 4 + 3 = 7, severe fence 10.
        // 7 lies exactly on the mild fence; 7.01 (same quartiles) lies just beyond it.
        let stats = SampleStatistics.summarize([1, 2, 3, 4, 7])
        #expect(stats.outliers == OutlierCounts())
        let beyond = SampleStatistics.summarize([1, 2, 3, 4, 7.01])
        #expect(beyond.outliers == OutlierCounts(highMild: 1))
    }

    @Test func emptyInputGivesDocumentedEmptyResult() {
        let stats = SampleStatistics.summarize([])
        #expect(stats.count == 0)
        #expect(stats.median == 0)
        #expect(stats.standardDeviation == 0)
        #expect(stats.medianConfidenceInterval == ConfidenceInterval(lower: 0, upper: 0, level: 0.95))
        #expect(stats.outliers == OutlierCounts())
    }

    @Test func singleValue() {
        let stats = SampleStatistics.summarize([42])
        #expect(stats.count == 1)
        #expect(stats.min == 42 && stats.max == 42 && stats.mean == 42 && stats.median == 42)
        #expect(stats.p90 == 42 && stats.p99 == 42)
        #expect(stats.standardDeviation == 0)
        #expect(stats.coefficientOfVariation == 0)
        #expect(stats.medianAbsoluteDeviation == 0)
        #expect(stats.medianConfidenceInterval == ConfidenceInterval(lower: 42, upper: 42, level: 0.95))
    }

    @Test func allEqualValues() {
        let stats = SampleStatistics.summarize([Double](repeating: 3.25, count: 20))
        #expect(stats.median == 3.25)
        #expect(stats.standardDeviation == 0)
        #expect(stats.coefficientOfVariation == 0)
        #expect(stats.medianAbsoluteDeviation == 0)
        #expect(stats.outliers == OutlierCounts())
        #expect(stats.medianConfidenceInterval.lower == 3.25)
        #expect(stats.medianConfidenceInterval.upper == 3.25)
    }

    @Test func zeroMeanHasZeroCoefficientOfVariation() {
        let stats = SampleStatistics.summarize([-1, 1])
        #expect(stats.mean == 0)
        #expect(stats.standardDeviation > 0)
        #expect(stats.coefficientOfVariation == 0)
    }

    @Test func bootstrapIsDeterministicAndOrderIndependent() {
        let values = Synthetic.normal(count: 30, mean: 100, relativeSpread: 0.03, seed: 11)
        let first = SampleStatistics.summarize(values)
        let second = SampleStatistics.summarize(values)
        let reversed = SampleStatistics.summarize(values.reversed())
        #expect(first == second)
        #expect(first == reversed)
        // A different data set gets a different interval (the seed really depends on the data).
        let other = SampleStatistics.summarize(Synthetic.normal(count: 30, mean: 100, relativeSpread: 0.03, seed: 12))
        #expect(first.medianConfidenceInterval != other.medianConfidenceInterval)
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func confidenceIntervalContainsMedianAndIsPlausible(seed: UInt64) {
        let count = 5 + Int(seed) * 7
        let values = Synthetic.normal(count: count, mean: 1000, relativeSpread: 0.02, seed: seed)
        let stats = SampleStatistics.summarize(values)
        let interval = stats.medianConfidenceInterval
        #expect(interval.lower <= stats.median && stats.median <= interval.upper)
        #expect(interval.lower >= stats.min && interval.upper <= stats.max)
        // Far narrower than the data range once there are enough samples, and not degenerate.
        #expect(interval.upper > interval.lower)
        if count >= 30 {
            #expect(interval.upper - interval.lower < (stats.max - stats.min) / 2)
        }
    }

    @Test func intervalWidthMatchesTheoryForNormalData() {
        // For normal data the median's standard error is about 1.2533 · σ / √n; with σ = 20 and
        // n = 100 a 95% interval is about 2 · 1.96 · 1.2533 · 20 / 10 ≈ 9.8 wide.
        let values = Synthetic.normal(count: 100, mean: 1000, relativeSpread: 0.02, seed: 2024)
        let interval = SampleStatistics.summarize(values).medianConfidenceInterval
        let width = interval.upper - interval.lower
        #expect(width > 5 && width < 20, "width \(width)")
    }

    @Test func moreResamplesChangeNothingButPrecision() {
        let values = Synthetic.normal(count: 40, mean: 50, relativeSpread: 0.05, seed: 99)
        let coarse = SampleStatistics.summarize(values, resamples: 500)
        let fine = SampleStatistics.summarize(values, resamples: 4000)
        #expect(coarse.median == fine.median)
        // Both estimate the same interval; they agree to within a small part of the spread.
        #expect(abs(coarse.medianConfidenceInterval.lower - fine.medianConfidenceInterval.lower) < 0.02 * 50)
        #expect(abs(coarse.medianConfidenceInterval.upper - fine.medianConfidenceInterval.upper) < 0.02 * 50)
    }

    @Test func confidenceLevelWidensInterval() {
        let values = Synthetic.normal(count: 40, mean: 50, relativeSpread: 0.05, seed: 5)
        let narrow = SampleStatistics.summarize(values, confidenceLevel: 0.5).medianConfidenceInterval
        let wide = SampleStatistics.summarize(values, confidenceLevel: 0.99).medianConfidenceInterval
        #expect(narrow.level == 0.5 && wide.level == 0.99)
        #expect(wide.lower <= narrow.lower && wide.upper >= narrow.upper)
        #expect(wide.upper - wide.lower > narrow.upper - narrow.lower)
    }

    @Test func resampledMedianComesFromTheData() {
        // For an odd count every resampled median is one of the values.
        let sorted: [Double] = [1, 2, 3, 5, 8, 13, 21]
        var generator = SplitMix64(seed: 1)
        var counts = [Int](repeating: 0, count: sorted.count)
        for _ in 0..<200 {
            let median = Bootstrap.resampledMedian(of: sorted, counts: &counts, using: &generator)
            #expect(sorted.contains(median))
        }
    }
}
