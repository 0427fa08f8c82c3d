import Testing

@testable import PerfStatistics

/// Expected values come from SciPy 1.17.1 (NumPy 2.4.6):
/// `scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method=..., use_continuity=True)`,
/// with the `method` named in each test.
@Suite struct MannWhitneyUTests {
    static func close(_ actual: Double, _ expected: Double, relative: Double = 1e-9) -> Bool {
        abs(actual - expected) <= relative * max(abs(expected), 1e-300)
    }

    @Test func exactSmallSamples() {
        // method="exact": statistic 2.0, pvalue 0.017316017316017316 (= 8 / 462 arrangements).
        let result = MannWhitneyU.test([1.1, 2.3, 3.5, 4.2, 5.9], [6.1, 7.4, 8.8, 9.2, 10.5, 3.9])
        #expect(result.method == .exact)
        #expect(result.u == 2)
        #expect(Self.close(result.pValue, 0.017316017316017316))
    }

    @Test func exactMediumSamples() {
        // method="exact": statistic 57.0, pvalue 0.0040284881482703615.
        let x: [Double] = [12.5, 13.1, 11.8, 14.2, 12.9, 13.7, 12.2, 15.0, 13.3, 12.7, 14.8, 11.9, 13.9, 12.4, 13.0]
        let y: [Double] = [
            13.6, 14.1, 12.8, 15.3, 14.4, 13.8, 14.9, 15.6, 13.2, 14.7, 16.1, 13.4, 14.0, 15.1, 12.6, 14.6, 15.8, 13.5,
        ]
        let result = MannWhitneyU.test(x, y)
        #expect(result.method == .exact)
        #expect(result.u == 57)
        #expect(Self.close(result.pValue, 0.0040284881482703615))
        // Swapping the samples gives the other U and the same two-sided p-value.
        let swapped = MannWhitneyU.test(y, x)
        #expect(swapped.u == Double(x.count * y.count) - 57)
        #expect(Self.close(swapped.pValue, result.pValue))
    }

    @Test func exactAtTheSizeLimit() {
        // 1…20 against 21…40, method="exact": statistic 0.0, pvalue 1.4508889103849684e-11 (= 2 / C(40, 20)).
        let result = MannWhitneyU.test((1...20).map(Double.init), (21...40).map(Double.init))
        #expect(result.method == .exact)
        #expect(result.u == 0)
        #expect(Self.close(result.pValue, 1.4508889103849684e-11, relative: 1e-6))
    }

    @Test func tiesUseTheCorrectedNormalApproximation() {
        // method="asymptotic": statistic 3.5, pvalue 0.004793348746185457.
        let result = MannWhitneyU.test([1, 2, 2, 3, 3, 3, 4], [3, 4, 4, 5, 5, 6, 7, 7])
        #expect(result.method == .asymptotic)
        #expect(result.u == 3.5)
        #expect(Self.close(result.pValue, 0.004793348746185457, relative: 1e-7))
    }

    @Test func largeSamplesUseTheNormalApproximation() {
        // numpy.random.default_rng(7): normal(100, 3, 30) and normal(102, 3, 25), rounded to 3 decimals;
        // method="asymptotic": statistic 161.0, pvalue 0.0003076063670964226.
        let x: [Double] = [
            100.004, 100.896, 99.178, 97.328, 98.636, 97.025, 100.18, 104.021, 98.523, 98.139, 101.47, 101.071,
            100.316, 97.209, 99.912, 102.086, 95.967, 98.627, 94.296, 96.131, 94.475, 99.295, 96.198, 100.814,
            100.47, 99.439, 92.45, 98.384, 99.854, 100.34,
        ]
        let y: [Double] = [
            97.41, 100.567, 99.064, 99.573, 105.183, 99.577, 101.902, 104.653, 100.249, 101.665, 102.331, 102.191,
            98.325, 102.228, 106.076, 97.359, 104.578, 102.358, 100.076, 108.001, 104.287, 98.402, 102.224, 103.73,
            101.434,
        ]
        let result = MannWhitneyU.test(x, y)
        #expect(result.method == .asymptotic)
        #expect(result.u == 161)
        #expect(Self.close(result.pValue, 0.0003076063670964226, relative: 1e-7))
    }

    @Test func identicalSamplesAreNotDifferent() {
        let allSame = MannWhitneyU.test([5, 5, 5, 5], [5, 5, 5])
        #expect(allSame.pValue == 1)
        #expect(allSame.u == 6)  // every pair tied: 12 pairs × ½.
        let sameValues = MannWhitneyU.test([1, 2, 3, 4, 5], [1, 2, 3, 4, 5])
        #expect(sameValues.pValue == 1)
        let empty = MannWhitneyU.test([], [1, 2])
        #expect(empty.pValue == 1)
    }

    @Test func averageRanksOfTies() {
        let ranked = MannWhitneyU.averageRanks([10, 20, 20, 5, 20])
        // Sorted: 5 (rank 1), 10 (rank 2), 20 20 20 (ranks 3, 4, 5 → 4 each).
        #expect(ranked.ranks == [2, 4, 4, 1, 4])
        #expect(ranked.tieSizes.sorted() == [1, 1, 3])
    }

    @Test func exactDistributionMatchesEnumeration() {
        // Every way to choose which 4 of 9 ranked positions are x's (C(9, 4) = 126); U counts the
        // y's below each x.
        let m = 4
        let n = 5
        var counts = [Int](repeating: 0, count: m * n + 1)
        for mask in 0..<(1 << (m + n)) where mask.nonzeroBitCount == m {
            var u = 0
            var ysBelow = 0
            for position in 0..<(m + n) {
                if mask & (1 << position) != 0 { u += ysBelow } else { ysBelow += 1 }
            }
            counts[u] += 1
        }
        var cumulative = 0
        for k in 0...(m * n) {
            cumulative += counts[k]
            #expect(Self.close(MannWhitneyU.exactCumulativeProbability(atMost: k, m, n), Double(cumulative) / 126))
            #expect(Self.close(MannWhitneyU.exactCumulativeProbability(atMost: k, n, m), Double(cumulative) / 126))
        }
    }

    @Test func exactDistributionIsSymmetricAndComplete() {
        // Sizes 3 and 4: C(7, 3) = 35 arrangements; U = 0 in exactly one of them.
        #expect(Self.close(MannWhitneyU.exactCumulativeProbability(atMost: 0, 3, 4), 1.0 / 35))
        #expect(MannWhitneyU.exactCumulativeProbability(atMost: 12, 3, 4) == 1)
        #expect(MannWhitneyU.exactCumulativeProbability(atMost: -1, 3, 4) == 0)
        // Symmetry: P(U ≤ k) = P(U ≥ mn − k) = 1 − P(U ≤ mn − k − 1).
        for k in 0..<12 {
            let lower = MannWhitneyU.exactCumulativeProbability(atMost: k, 3, 4)
            let upper = 1 - MannWhitneyU.exactCumulativeProbability(atMost: 12 - k - 1, 3, 4)
            #expect(Self.close(lower, upper, relative: 1e-12))
        }
    }
}
