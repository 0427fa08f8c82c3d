import Foundation

/// A quantile of a sample with its distribution-free confidence interval: two order statistics
/// chosen from the binomial distribution of how many samples fall below the true quantile, so
/// nothing is assumed about the shape of the times (which on a shared VM are often bimodal).
public struct QuantileInterval: EstimateWithInterval, Equatable, Sendable {
    /// The probability of the quantile, e.g. 0.1 for the 10th percentile.
    public var probability: Double
    /// The quantile of the sample (type 7, like `SampleStatistics.quantile`).
    public var estimate: Double
    public var lower: Double
    public var upper: Double
    public var level: Double
    /// The 1-based ranks of `lower` and `upper` in the sorted sample.
    public var ranks: ClosedRange<Int>

    /// Nil when the sample is too small for a two-sided interval at `level`: when even the smallest
    /// (or largest) value would fall short of the coverage, as for the 10th percentile of fewer
    /// than 36 values at 95%.
    public init?(of values: [Double], probability: Double, level: Double = 0.95) {
        precondition(probability > 0 && probability < 1, "quantile probability \(probability) is outside (0, 1)")
        precondition(level > 0 && level < 1, "confidence level must be in (0, 1)")
        guard let ranks = Self.ranks(count: values.count, probability: probability, level: level) else { return nil }
        let sorted = SampleStatistics.sortedTotally(values)
        self.probability = probability
        self.level = level
        self.ranks = ranks
        estimate = SampleStatistics.quantile(sorted, probability)
        lower = sorted[ranks.lowerBound - 1]
        upper = sorted[ranks.upperBound - 1]
    }

    /// The ranks l and u with P(B < l) ≤ α/2 and P(B ≥ u) ≤ α/2 for B ~ Binomial(count, probability),
    /// the number of samples below the true quantile; [x(l), x(u)] then covers it with probability
    /// at least `level`. Nil when no rank satisfies either side.
    public static func ranks(count: Int, probability: Double, level: Double = 0.95) -> ClosedRange<Int>? {
        guard count > 0 else { return nil }
        let tail = (1 - level) / 2
        // cumulative[k] = P(B ≤ k).
        var cumulative: [Double] = []
        cumulative.reserveCapacity(count + 1)
        var sum = 0.0
        for k in 0...count {
            sum += Binomial.probability(of: k, trials: count, probability: probability)
            cumulative.append(min(sum, 1))
        }
        // Largest l ≥ 1 with P(B ≤ l − 1) ≤ tail.
        guard let belowLower = cumulative.lastIndex(where: { $0 <= tail }) else { return nil }
        // Smallest u ≤ count with P(B ≥ u) = 1 − P(B ≤ u − 1) ≤ tail.
        guard let belowUpper = cumulative.firstIndex(where: { 1 - $0 <= tail }), belowUpper + 1 <= count else {
            return nil
        }
        let lower = belowLower + 1
        let upper = belowUpper + 1
        return lower <= upper ? lower...upper : nil
    }

    /// The smallest of `candidates` (in order) whose interval exists for `count` values.
    public static func smallestProbability(
        for count: Int, from candidates: [Double], level: Double = 0.95
    ) -> Double? {
        candidates.first { ranks(count: count, probability: $0, level: level) != nil }
    }
}
