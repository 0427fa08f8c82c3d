import Foundation

/// The centre of a sample of paired differences with its confidence interval: the Hodges–Lehmann
/// estimate (the median of the Walsh averages, (dᵢ + dⱼ) / 2 for every i ≤ j) and the two Walsh
/// averages that the exact distribution of Wilcoxon's signed-rank statistic puts at the interval's
/// ends. It assumes only that the differences are symmetric about their centre.
///
/// Not the median of the differences: on roughly normal noise this interval is about four fifths as
/// wide (docs/dispatchbench-findings.md#how-times-are-compared).
public struct SignedRankInterval: EstimateWithInterval, Equatable, Sendable {
    public var estimate: Double
    public var lower: Double
    public var upper: Double
    public var level: Double
    /// How many differences it was computed from.
    public var count: Int

    /// Nil when there are too few differences for an interval at `level` (fewer than 6 at 95%).
    public init?(of differences: [Double], level: Double = 0.95) {
        precondition(level > 0 && level < 1, "confidence level must be in (0, 1)")
        guard let rank = Self.lowerRank(count: differences.count, level: level) else { return nil }
        var walsh: [Double] = []
        walsh.reserveCapacity(differences.count * (differences.count + 1) / 2)
        for i in differences.indices {
            for j in i..<differences.count { walsh.append((differences[i] + differences[j]) / 2) }
        }
        let sorted = SampleStatistics.sortedTotally(walsh)
        self.level = level
        count = differences.count
        estimate = SampleStatistics.quantile(sorted, 0.5)
        lower = sorted[rank - 1]
        upper = sorted[sorted.count - rank]
    }

    /// Above this many differences the critical value comes from the normal approximation: the exact
    /// distribution takes about count³/6 steps, and there the two agree to a rank.
    static let exactLimit = 300

    /// The 1-based rank k of the interval's lower end among the sorted Walsh averages (the upper end
    /// is k-th from the top): one more than the largest t with P(T ≤ t) ≤ (1 − level) / 2, where T is
    /// the signed-rank statistic of `count` differences centred on zero. Nil when no t qualifies.
    static func lowerRank(count: Int, level: Double) -> Int? {
        guard count > 0 else { return nil }
        let tail = (1 - level) / 2
        let t =
            count > exactLimit ? approximateCritical(count: count, tail: tail) : exactCritical(count: count, tail: tail)
        return t >= 0 ? t + 1 : nil
    }

    /// The largest t with P(T ≤ t) ≤ tail, from T's exact distribution; −1 when there is none.
    static func exactCritical(count: Int, tail: Double) -> Int {
        let total = count * (count + 1) / 2
        // probability[s] = P(T = s), built one rank at a time: rank r is in the sum or not, each with
        // probability ½.
        var probability = [Double](repeating: 0, count: total + 1)
        probability[0] = 1
        for rank in 1...max(1, count) {
            for sum in stride(from: rank * (rank + 1) / 2, through: rank, by: -1) {
                probability[sum] = (probability[sum] + probability[sum - rank]) / 2
            }
            for sum in 0..<rank { probability[sum] /= 2 }
        }
        var cumulative = 0.0
        var t = -1
        for sum in 0...total {
            cumulative += probability[sum]
            guard cumulative <= tail else { break }
            t = sum
        }
        return t
    }

    /// The same from the normal approximation with continuity correction: T has mean n(n+1)/4 and
    /// variance n(n+1)(2n+1)/24, and P(T ≤ t) ≈ P(Z > (mean − t − ½) / sd).
    static func approximateCritical(count: Int, tail: Double) -> Int {
        let n = Double(count)
        let mean = n * (n + 1) / 4
        let sd = (n * (n + 1) * (2 * n + 1) / 24).squareRoot()
        var t = Int(mean)
        while t >= 0 && MannWhitneyU.normalSurvival((mean - Double(t) - 0.5) / sd) > tail { t -= 1 }
        return t
    }
}
