import PerfReport

/// Summary statistics of one metric over a benchmark's samples (pure functions, no I/O).
///
/// Quantiles (median, p90, p99, the quartiles of the Tukey fences) all use linear interpolation
/// between closest ranks — R's type 7, numpy's default — so every number can be checked with
/// `numpy.quantile` or by hand.
public enum SampleStatistics {
    /// Summarises `values` (any order).
    ///
    /// An empty array gives a result with `count == 0` and every other number 0 (and a 0…0
    /// interval): the runner never measures zero samples, but an interrupted run or a hand-edited
    /// report must not crash the analysis. One value gives that value everywhere, a standard
    /// deviation of 0 and a zero-width interval.
    ///
    /// - Parameters:
    ///   - confidenceLevel: level of the bootstrap interval of the median, e.g. 0.95.
    ///   - resamples: bootstrap resamples; the interval is deterministic for the same values.
    public static func summarize(
        _ values: [Double], confidenceLevel: Double = 0.95, resamples: Int = 2000
    ) -> Statistics {
        precondition(confidenceLevel > 0 && confidenceLevel < 1, "confidence level must be in (0, 1)")
        precondition(resamples > 0, "at least one bootstrap resample is needed")
        guard !values.isEmpty else {
            return Statistics(
                count: 0, min: 0, max: 0, mean: 0, median: 0, standardDeviation: 0, coefficientOfVariation: 0,
                medianAbsoluteDeviation: 0, p90: 0, p99: 0,
                medianConfidenceInterval: ConfidenceInterval(lower: 0, upper: 0, level: confidenceLevel),
                outliers: OutlierCounts())
        }
        let sorted = sortedTotally(values)
        let n = Double(sorted.count)
        let mean = sorted.reduce(0, +) / n
        let standardDeviation: Double
        if sorted.count < 2 {
            standardDeviation = 0
        } else {
            // Two passes (mean first) rather than a running sum of squares, which cancels badly
            // when the spread is tiny compared with the values.
            let squares = sorted.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
            standardDeviation = (squares / (n - 1)).squareRoot()
        }
        let median = quantile(sorted, 0.5)
        let deviations = sortedTotally(sorted.map { abs($0 - median) })
        let interval = medianConfidenceInterval(sorted: sorted, level: confidenceLevel, resamples: resamples)
        return Statistics(
            count: sorted.count,
            min: sorted[0],
            max: sorted[sorted.count - 1],
            mean: mean,
            median: median,
            standardDeviation: standardDeviation,
            coefficientOfVariation: mean == 0 ? 0 : standardDeviation / mean,
            medianAbsoluteDeviation: quantile(deviations, 0.5),
            p90: quantile(sorted, 0.9),
            p99: quantile(sorted, 0.99),
            medianConfidenceInterval: interval,
            outliers: outliers(sorted: sorted))
    }

    /// The `p` quantile (0…1) of sorted values by linear interpolation between closest ranks
    /// (R type 7, numpy's default): position h = (n − 1)·p, then x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]).
    public static func quantile(_ sorted: [Double], _ p: Double) -> Double {
        precondition(!sorted.isEmpty, "quantile of no values")
        precondition(p >= 0 && p <= 1, "quantile \(p) is outside 0…1")
        let position = Double(sorted.count - 1) * p
        let lower = Int(position.rounded(.down))
        let fraction = position - Double(lower)
        guard lower + 1 < sorted.count, fraction > 0 else { return sorted[lower] }
        return sorted[lower] + fraction * (sorted[lower + 1] - sorted[lower])
    }

    /// The median of `values` (any order; the mean of the two middle values when the count is even).
    public static func median(_ values: [Double]) -> Double {
        quantile(sortedTotally(values), 0.5)
    }

    /// Tukey fences on sorted values: Q1 and Q3 by the type-7 quantile, mild outliers beyond
    /// 1.5 × IQR but within 3 × IQR, severe beyond 3 × IQR. Values on a fence are not outliers,
    /// so all-equal samples (IQR 0) have none.
    public static func outliers(sorted: [Double]) -> OutlierCounts {
        guard !sorted.isEmpty else { return OutlierCounts() }
        let q1 = quantile(sorted, 0.25)
        let q3 = quantile(sorted, 0.75)
        let iqr = q3 - q1
        var counts = OutlierCounts()
        for value in sorted {
            if value < q1 - 3 * iqr {
                counts.lowSevere += 1
            } else if value < q1 - 1.5 * iqr {
                counts.lowMild += 1
            } else if value > q3 + 3 * iqr {
                counts.highSevere += 1
            } else if value > q3 + 1.5 * iqr {
                counts.highMild += 1
            }
        }
        return counts
    }

    /// Percentile bootstrap interval of the median, seeded from the values so that it is the
    /// same every time the same samples are analysed.
    ///
    /// The interval is widened, if needed, to contain the sample median itself: with very few
    /// distinct values the percentile interval can otherwise end just short of it, and a reader
    /// rightly expects the estimate to lie inside its own interval.
    package static func medianConfidenceInterval(sorted: [Double], level: Double, resamples: Int) -> ConfidenceInterval
    {
        let median = quantile(sorted, 0.5)
        guard sorted.count > 1 else { return ConfidenceInterval(lower: median, upper: median, level: level) }
        var generator = SplitMix64(seed: Bootstrap.seed(sorted))
        var counts = [Int](repeating: 0, count: sorted.count)
        var medians: [Double] = []
        medians.reserveCapacity(resamples)
        for _ in 0..<resamples {
            medians.append(Bootstrap.resampledMedian(of: sorted, counts: &counts, using: &generator))
        }
        let (lower, upper) = Bootstrap.percentileInterval(&medians, level: level)
        return ConfidenceInterval(lower: Swift.min(lower, median), upper: Swift.max(upper, median), level: level)
    }

    /// Sorted by IEEE total order, so a NaN that slipped into a hand-edited report sorts to one
    /// end instead of making the order (and every quantile) undefined.
    package static func sortedTotally(_ values: [Double]) -> [Double] {
        values.sorted { $0.isTotallyOrdered(belowOrEqualTo: $1) && !$1.isTotallyOrdered(belowOrEqualTo: $0) }
    }
}
