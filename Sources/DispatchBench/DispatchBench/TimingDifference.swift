import Foundation
import Harness
import PerfReport

/// Whether one benchmark is faster or slower than another, at `DecisionLevel.current`; a difference
/// smaller than the minimum effect never counts. Samples taken in the same rounds are compared in pairs
/// (Hodges–Lehmann ratio, Wilcoxon signed-rank interval: the host's slow stretches hit both sides);
/// otherwise a low quantile of each (slow stretches only add time), whose distribution-free intervals
/// must not overlap (docs/dispatchbench-findings.md#how-times-are-compared).
struct TimingDifference: Equatable, Sendable {
    enum Direction: Equatable, Sendable { case lower, higher, notSignificant }

    /// Quantiles tried in order when unpaired: the first for which both samples are large enough for
    /// a 95% interval (the 10th percentile needs 36 samples; --quick runs compare a higher one).
    static let probabilities = stride(from: 0.10, through: 0.50, by: 0.05).map { ($0 * 100).rounded() / 100 }
    /// Differences smaller than this fraction of the baseline are not counted, however significant:
    /// no claim is about them. A claim may set a larger one.
    static let minimumEffect = 0.05
    /// Fewer rounds than this with one sample of each side are compared unpaired: a typical ratio
    /// of a handful of pairs has an interval too wide to decide anything.
    static let minimumPairs = 20
    /// A side whose 90th percentile is more than this many times its 10th switches between regimes
    /// (a lock convoy or not) from visit to visit; the host's states stay within 2–3×
    /// (docs/dispatchbench-findings.md#how-times-are-compared).
    static let regimeSpread = 5.0
    /// With such a side, a difference counts only when the case was faster (or slower) in at least
    /// this share of the paired rounds, significantly: the 75th (or 25th) percentile of the per-round
    /// ratios, whose distribution-free interval must exclude 1, whichever regime each visit caught.
    static let regimeShare = 0.75

    var direction: Direction
    /// What decided it, e.g. "significantly faster (the 95% interval of the paired ratio excludes 1)".
    var words: String
    /// The compared quantiles of each side, nil when the samples were too few for any.
    var result: QuantileInterval?
    var baseline: QuantileInterval?
    /// The typical per-round ratio result / baseline (Hodges–Lehmann), when the samples were paired.
    var pairedRatio: SignedRankInterval?
    /// How many rounds were paired (0 when compared unpaired).
    var pairs: Int = 0

    init(_ result: BenchmarkResult, comparedTo baseline: BenchmarkResult, minimumEffect: Double = Self.minimumEffect) {
        let a = result.wallNanosecondsPerOperation
        let b = baseline.wallNanosecondsPerOperation
        let level = DecisionLevel.current
        let probability = QuantileInterval.smallestProbability(
            for: min(a.count, b.count), from: Self.probabilities, level: level)
        self.result = probability.flatMap { QuantileInterval(of: a, probability: $0, level: level) }
        self.baseline = probability.flatMap { QuantileInterval(of: b, probability: $0, level: level) }

        let logRatios = Self.pairedLogRatios(result, baseline)
        if logRatios.count >= Self.minimumPairs {
            pairs = logRatios.count
            pairedRatio = SignedRankInterval(of: logRatios, level: level)?.mapped(exp)
        }
        if let regimes = Self.regimes(a, b, logRatios: logRatios, minimumEffect: minimumEffect) {
            (direction, words) = regimes
            return
        }
        if let ratio = pairedRatio {
            if abs(ratio.estimate - 1) < minimumEffect {
                direction = .notSignificant
                words = String(format: "no meaningful difference (within %.0f%%)", minimumEffect * 100)
            } else if ratio.upper < 1 || ratio.lower > 1 {
                direction = ratio.upper < 1 ? .lower : .higher
                words =
                    "significantly \(direction == .lower ? "faster" : "slower") (the \(DecisionLevel.percent) interval of the paired ratio excludes 1)"
            } else {
                direction = .notSignificant
                words =
                    "no significant difference (the \(DecisionLevel.percent) interval of the paired ratio includes 1)"
            }
            return
        }

        guard let ours = self.result, let theirs = self.baseline, let probability else {
            direction = .notSignificant
            words = "too few samples (\(a.count) and \(b.count)) for a \(DecisionLevel.percent) interval of a quantile"
            return
        }
        let name = Self.ordinal(probability)
        let effect = theirs.estimate > 0 ? abs(ours.estimate / theirs.estimate - 1) : 0
        if effect < minimumEffect {
            direction = .notSignificant
            words = String(format: "no meaningful difference (within %.0f%%)", minimumEffect * 100)
        } else if ours.upper < theirs.lower || ours.lower > theirs.upper {
            direction = ours.upper < theirs.lower ? .lower : .higher
            words =
                "significantly \(direction == .lower ? "faster" : "slower") (\(DecisionLevel.percent) intervals of the \(name) do not overlap)"
        } else {
            direction = .notSignificant
            words = "no significant difference (\(DecisionLevel.percent) intervals of the \(name) overlap)"
        }
    }

    /// The decision when either side switches between regimes (see `regimeSpread`), nil when neither
    /// does: the share of paired rounds in which this case was faster or slower (`regimeShare`).
    static func regimes(_ result: [Double], _ baseline: [Double], logRatios: [Double], minimumEffect: Double)
        -> (Direction, String)?
    {
        guard result.count >= minimumPairs, baseline.count >= minimumPairs else { return nil }
        func range(_ values: [Double]) -> (low: Double, high: Double) {
            let sorted = values.sorted()
            return (SampleStatistics.quantile(sorted, 0.1), SampleStatistics.quantile(sorted, 0.9))
        }
        let ours = range(result)
        let theirs = range(baseline)
        func spread(_ range: (low: Double, high: Double)) -> Double {
            range.low > 0 ? range.high / range.low : .infinity
        }
        guard max(spread(ours), spread(theirs)) > regimeSpread else { return nil }
        let switching = spread(theirs) > regimeSpread ? ("the baseline", theirs) : ("this case", ours)
        let described =
            "\(switching.0) switches between regimes from visit to visit (10th–90th percentile "
            + "\(Describe.duration(switching.1.low))–\(Describe.duration(switching.1.high))/op, "
            + String(format: "%.0f×)", spread(switching.1))
        guard logRatios.count >= minimumPairs else {
            return (
                .notSignificant,
                "no consistent difference: \(described), and only \(logRatios.count) rounds paired the two, "
                    + "too few to count the rounds each was faster in"
            )
        }
        let faster = logRatios.count { $0 < 0 }
        let slower = logRatios.count { $0 > 0 }
        let share = Int((regimeShare * 100).rounded())
        let counted = "this case was faster in \(faster) and slower in \(slower) of \(logRatios.count) paired rounds"
        // Faster in at least `regimeShare` of the rounds: the ratio's quantile at that share is below 1.
        if let high = QuantileInterval(of: logRatios, probability: regimeShare, level: DecisionLevel.current)?.mapped(
            exp),
            high.upper < 1, high.estimate <= 1 - minimumEffect
        {
            return (
                .lower,
                "faster whatever the regime: \(described), and \(counted) "
                    + String(
                        format: "(the %dth percentile of the paired ratio, %.2f× [%.2f×–%.2f×], is below 1)",
                        share, high.estimate, high.lower, high.upper)
            )
        }
        if let low = QuantileInterval(of: logRatios, probability: 1 - regimeShare, level: DecisionLevel.current)?
            .mapped(exp),
            low.lower > 1, low.estimate >= 1 + minimumEffect
        {
            return (
                .higher,
                "slower whatever the regime: \(described), and \(counted) "
                    + String(
                        format: "(the %dth percentile of the paired ratio, %.2f× [%.2f×–%.2f×], is above 1)",
                        100 - share, low.estimate, low.lower, low.upper)
            )
        }
        return (
            .notSignificant,
            "no consistent difference: \(described), and \(counted), neither significantly in \(share)% of "
                + "them, so which regime a run catches decides"
        )
    }

    /// log(result / baseline) for every round in which each side took exactly one sample (a
    /// round with several samples of one side was one long visit, not a moment shared with the other).
    static func pairedLogRatios(_ result: BenchmarkResult, _ baseline: BenchmarkResult) -> [Double] {
        func single(_ samples: [Sample]) -> [Int: Double] {
            var byRound: [Int: Double] = [:]
            var seen = Set<Int>()
            for sample in samples {
                guard let round = sample.round else { continue }
                byRound[round] = seen.insert(round).inserted ? sample.wallNanosecondsPerOperation : nil
            }
            return byRound
        }
        let ours = single(result.samples)
        let theirs = single(baseline.samples)
        return ours.keys.sorted().compactMap { round in
            guard let a = ours[round], let b = theirs[round], a > 0, b > 0 else { return nil }
            return log(a / b)
        }
    }

    /// result / baseline: the typical paired ratio when paired, else the ratio of the compared quantiles.
    var ratio: Double? {
        if let pairedRatio { return pairedRatio.estimate }
        guard let result, let baseline, baseline.estimate > 0 else { return nil }
        return result.estimate / baseline.estimate
    }

    /// Paired: "1.15× [1.09×–1.21×] over 50 paired rounds vs lock-pthread-mutex-r90: significantly
    /// slower (…); p10 10.4 µs/op and 9.29 µs/op; medians 12.3 µs and 10.5 µs". Unpaired: "p10 9.30 µs/op
    /// [9.20 µs–9.41 µs] vs lock-serial-queue-r90 p10 14.2 µs/op […], 0.65×: significantly faster (…);
    /// medians 10.6 µs and 15.1 µs".
    func sentence(_ result: BenchmarkResult, vs baselineLabel: String, _ baseline: BenchmarkResult) -> String {
        let medians =
            "medians \(Describe.duration(result.wallTime.median)) and \(Describe.duration(baseline.wallTime.median))"
        if let pairedRatio {
            let quantiles =
                self.result.flatMap { ours in
                    self.baseline.map { theirs in
                        "p\(Self.percent(ours.probability)) \(Describe.duration(ours.estimate))/op and "
                            + "\(Describe.duration(theirs.estimate))/op; "
                    }
                } ?? ""
            return String(
                format: "%.2f× [%.2f×–%.2f×] over %d paired rounds vs ", pairedRatio.estimate, pairedRatio.lower,
                pairedRatio.upper, pairs) + "\(baselineLabel): \(words); \(quantiles)\(medians)"
        }
        guard let ours = self.result, let theirs = self.baseline, let ratio else {
            return "\(medians) (vs \(baselineLabel)): \(words)"
        }
        return "\(Self.describe(ours)) vs \(baselineLabel) \(Self.describe(theirs)), "
            + String(format: "%.2f×: ", ratio) + "\(words); \(medians)"
    }

    private static func describe(_ quantile: QuantileInterval) -> String {
        "p\(percent(quantile.probability)) \(Describe.duration(quantile.estimate))/op "
            + "[\(Describe.duration(quantile.lower))–\(Describe.duration(quantile.upper))]"
    }

    private static func percent(_ probability: Double) -> Int { Int((probability * 100).rounded()) }

    private static func ordinal(_ probability: Double) -> String { "\(percent(probability))th percentile" }
}
