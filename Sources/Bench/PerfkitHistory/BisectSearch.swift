import PerfStatistics

/// The search `perfkit bisect` runs: commits along the first-parent history from a good end to a
/// bad end, each probe judged against both ends, narrowed to the first commit at the bad level in
/// about log2(N) probes. Logic only: the command builds and measures, this decides what next.
///
/// A probe that sits at neither end's level stops the search instead of being forced to one side:
/// the benchmark went back and forth, or moved in more than one step, and a bisection would name
/// a wrong commit with confidence.
public struct BisectSearch: Sendable {
    /// How a probe compares with the two ends.
    public enum Verdict: Sendable, Equatable {
        case good
        case bad
        /// At neither level; `fraction` places it: 0 at the good level, 1 at the bad one.
        case neither(fraction: Double)
    }

    public enum Outcome: Sendable, Equatable {
        /// `index` is the first commit at the bad level; the one before it is at the good level.
        case firstBad(index: Int)
        /// The probe at `index` was at neither level.
        case notMonotonic(index: Int, fraction: Double)
    }

    /// The good end (index 0) through the bad end (the last index), oldest first.
    public let count: Int
    private var good = 0
    private var bad: Int
    public private(set) var outcome: Outcome?

    public init(count: Int) {
        precondition(count >= 2, "a bisection needs a good and a bad end")
        self.count = count
        bad = count - 1
        if bad == 1 { outcome = .firstBad(index: 1) }
    }

    /// The index to build and measure next; nil once there is an outcome.
    public var next: Int? { outcome == nil ? (good + bad) / 2 : nil }

    /// The verdict of the probe `next` returned.
    public mutating func record(_ verdict: Verdict, at index: Int) {
        precondition(outcome == nil && index > good && index < bad, "record the probe `next` asked for")
        switch verdict {
        case .good: good = index
        case .bad: bad = index
        case .neither(let fraction):
            outcome = .notMonotonic(index: index, fraction: fraction)
            return
        }
        if bad - good == 1 { outcome = .firstBad(index: bad) }
    }

    /// The most probes a search of `count` commits takes besides the two ends: ⌈log2(count − 1)⌉.
    public static func maximumProbes(count: Int) -> Int {
        var probes = 0
        var span = count - 1
        while span > 1 {
            span = (span + 1) / 2
            probes += 1
        }
        return probes
    }
}

/// Judges a probe against the two ends of a bisection.
public struct BisectJudge: Sendable {
    /// A probe within this fraction of the ends' distance from one end is at that end's level
    /// (0.25: an exact count a quarter of the way is a third level, not noise).
    public var tolerance: Double

    public init(tolerance: Double = 0.25) { self.tolerance = tolerance }

    /// For exact counts (instructions, allocations): where the probe's value lies between the ends.
    public func verdict(value: Double, good: Double, bad: Double) -> BisectSearch.Verdict {
        let fraction = (value - good) / (bad - good)
        if abs(fraction) <= tolerance { return .good }
        if abs(fraction - 1) <= tolerance { return .bad }
        return .neither(fraction: fraction)
    }

    /// For times: the medians place the probe, and the Mann-Whitney U test must also tell it from
    /// the other end (p < `alpha`): a median near one end that the test cannot tell from the other
    /// is noise, not a level (the command measures such a probe once more before giving up).
    public func verdict(samples: [Double], good: [Double], bad: [Double], alpha: Double = 0.01)
        -> BisectSearch.Verdict
    {
        let median = { (values: [Double]) -> Double in
            let sorted = values.sorted()
            return sorted.count % 2 == 1
                ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }
        let placed = verdict(value: median(samples), good: median(good), bad: median(bad))
        switch placed {
        case .good where MannWhitneyU.test(samples, bad).pValue < alpha: return .good
        case .bad where MannWhitneyU.test(samples, good).pValue < alpha: return .bad
        case .neither: return placed
        default:
            let fraction = (median(samples) - median(good)) / (median(bad) - median(good))
            return .neither(fraction: fraction)
        }
    }
}
