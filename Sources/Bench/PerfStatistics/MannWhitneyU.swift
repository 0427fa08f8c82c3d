import Foundation

/// The two-sided Mann–Whitney U test (Wilcoxon rank-sum): do two independent samples come from
/// distributions where one tends to give larger values than the other?
///
/// It uses only ranks, so a few wild samples (a preempted run) cannot dominate it the way they
/// dominate a t-test. For small samples without ties the exact null distribution is used;
/// otherwise the normal approximation with tie correction and continuity correction — the same
/// choices as `scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method="exact"` or
/// `"asymptotic", use_continuity=True)`.
package enum MannWhitneyU {
    package enum Method: String, Sendable {
        case exact
        case asymptotic
    }

    package struct Result: Sendable, Equatable {
        /// U of the first sample: the number of pairs (x, y) with x > y, ties counting one half
        /// (scipy's `statistic`).
        package var u: Double
        /// Two-sided p-value.
        package var pValue: Double
        package var method: Method
    }

    /// Both samples at most this large and no ties: exact distribution. Beyond it the normal
    /// approximation is accurate to well under the precision anyone reads a p-value at.
    package static let exactSampleSizeLimit = 20

    /// Tests `x` against `y`. An empty sample gives U 0 and p-value 1: no evidence of a difference.
    package static func test(_ x: [Double], _ y: [Double]) -> Result {
        guard !x.isEmpty, !y.isEmpty else { return Result(u: 0, pValue: 1, method: .asymptotic) }
        let n1 = x.count
        let n2 = y.count
        let ranked = averageRanks(x + y)
        let rankSumX = ranked.ranks[0..<n1].reduce(0, +)
        let u1 = rankSumX - Double(n1 * (n1 + 1)) / 2
        let u2 = Double(n1 * n2) - u1
        let hasTies = ranked.tieSizes.contains { $0 > 1 }
        if !hasTies && n1 <= exactSampleSizeLimit && n2 <= exactSampleSizeLimit {
            // P(U ≤ min(U1, U2)), doubled for two sides; U takes integer values without ties.
            let smaller = Int(Swift.min(u1, u2).rounded())
            let p = 2 * exactCumulativeProbability(atMost: smaller, n1, n2)
            return Result(u: u1, pValue: Swift.min(1, p), method: .exact)
        }
        let n = Double(n1 + n2)
        let tieTerm = ranked.tieSizes.reduce(0.0) { sum, t in
            let t = Double(t)
            return sum + (t * t * t - t)
        }
        let variance = Double(n1 * n2) / 12 * ((n + 1) - tieTerm / (n * (n - 1)))
        guard variance > 0 else {
            // Every value is the same: nothing separates the samples.
            return Result(u: u1, pValue: 1, method: .asymptotic)
        }
        let mean = Double(n1 * n2) / 2
        let z = (Swift.max(u1, u2) - mean - 0.5) / variance.squareRoot()
        let p = 2 * normalSurvival(z)
        return Result(u: u1, pValue: Swift.min(1, Swift.max(0, p)), method: .asymptotic)
    }

    /// Ranks 1…n with ties given the average of the ranks they span, in the input's order, and
    /// the size of every group of equal values.
    static func averageRanks(_ values: [Double]) -> (ranks: [Double], tieSizes: [Int]) {
        let order = values.indices.sorted {
            values[$0].isTotallyOrdered(belowOrEqualTo: values[$1])
                && !values[$1].isTotallyOrdered(belowOrEqualTo: values[$0])
        }
        var ranks = [Double](repeating: 0, count: values.count)
        var tieSizes: [Int] = []
        var start = 0
        while start < order.count {
            var end = start + 1
            while end < order.count && values[order[end]] == values[order[start]] { end += 1 }
            // Positions start..<end hold equal values: ranks start+1 … end, averaged.
            let average = Double(start + 1 + end) / 2
            for position in start..<end { ranks[order[position]] = average }
            tieSizes.append(end - start)
            start = end
        }
        return (ranks, tieSizes)
    }

    /// P(U ≤ u) under the null hypothesis for sample sizes m and n without ties.
    ///
    /// The number of arrangements of m x's and n y's with U = k is the coefficient of q^k in the
    /// Gaussian binomial coefficient [m + n choose m]_q = ∏_{i=1…m} (1 − q^(n+i)) / (1 − q^i).
    /// Multiplying in one factor and dividing out the next keeps every intermediate polynomial one
    /// with non-negative integer coefficients ([n + i choose i]_q), all below C(40, 20) ≈ 1.4·10¹¹
    /// for the sizes used here, so doubles hold them exactly. O(m²n) operations, no tables.
    static func exactCumulativeProbability(atMost u: Int, _ m: Int, _ n: Int) -> Double {
        guard u >= 0 else { return 0 }
        if u >= m * n { return 1 }
        // Room for the numerator factor of the last step before its division.
        var coefficients = [Double](repeating: 0, count: m * n + m + 1)
        coefficients[0] = 1
        var degree = 0
        for i in stride(from: 1, through: m, by: 1) {
            // × (1 − q^(n+i)), from the top so each coefficient uses the old values.
            degree += n + i
            for k in stride(from: degree, through: n + i, by: -1) {
                coefficients[k] -= coefficients[k - (n + i)]
            }
            // ÷ (1 − q^i): the quotient's coefficients are c[k] + quotient[k − i], from the bottom.
            for k in stride(from: i, through: degree, by: 1) {
                coefficients[k] += coefficients[k - i]
            }
            degree -= i
        }
        let total = coefficients.reduce(0, +)
        let below = coefficients[0...u].reduce(0, +)
        return below / total
    }

    /// P(Z > z) for a standard normal Z, accurate in the far tail too (erfc, not 1 − Φ).
    package static func normalSurvival(_ z: Double) -> Double {
        0.5 * erfc(z / 2.0.squareRoot())
    }
}
