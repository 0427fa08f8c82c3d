import PerfReport

/// When a benchmark has been measured enough: the default run's way of spending samples where the
/// answer is still open (in the spirit of BenchmarkDotNet's `MaxRelativeError`), instead of giving
/// every benchmark its full count whether it is clear-cut or a close call.
///
/// - A benchmark with a claim stops once the claim is decided (held or did not hold) at a look, and
///   so do the benchmarks it is compared with, once no open claim compares with them. Looks happen
///   after the rounds in ``looks``; a look decides at ``DecisionLevel/interim`` (see there for why),
///   and a claim still open when its benchmark reaches its cap of samples is judged at the end of the
///   run like any other, at ``DecisionLevel/final``, where too little evidence says *inconclusive*.
/// - A benchmark without a claim stops once the 95% interval of its median lies within
///   ±``relativeError`` of the median and its visits agree as closely (``isPrecise(_:)``), after at
///   least ``minimumVisits`` visits (fewer would leave
///   its median to the layout and host state of one or two moments; see `RunConfiguration.rounds`).
public struct SequentialStopping: Sendable, Equatable {
    /// After how many rounds (counted from 1) the claims are looked at.
    public var looks: [Int]
    /// The largest half-width of a median's 95% interval, as a fraction of the median, that stops a
    /// benchmark without a claim.
    public var relativeError: Double
    /// The fewest visits after which a benchmark without a claim may stop.
    public var minimumVisits: Int

    public init(looks: [Int], relativeError: Double = 0.01, minimumVisits: Int = 3) {
        self.looks = looks.sorted()
        self.relativeError = relativeError
        self.minimumVisits = max(1, minimumVisits)
    }

    /// Whether a benchmark without a claim is measured precisely enough: the 95% interval of its
    /// median within ±``relativeError``, and every visit's median within as much of the overall one:
    /// visits (instance, layout) can disagree by more than the samples within one
    /// (docs/measurement.md#stability).
    public func isPrecise(_ result: BenchmarkResult) -> Bool {
        let statistics = result.wallTime
        guard statistics.median > 0 else { return true }
        let tolerance = relativeError * statistics.median
        let interval = statistics.medianConfidenceInterval
        guard max(statistics.median - interval.lower, interval.upper - statistics.median) <= tolerance else {
            return false
        }
        let visits = Dictionary(grouping: result.samples, by: { $0.round ?? 0 }).values
        return visits.allSatisfy { samples in
            abs(SampleStatistics.median(samples.map(\.wallNanosecondsPerOperation)) - statistics.median) <= tolerance
        }
    }

    /// The ids of the analysed `results` whose answers are still open: claims judged inconclusive,
    /// every result such a claim was compared with, and results without a claim whose medians are
    /// not yet precise. A result's own decided claim does not close it while an open claim needs it.
    public func openIDs(of results: [BenchmarkResult]) -> Set<String> {
        var open = Set<String>()
        for result in results {
            if let claim = result.claim {
                guard claim.verdict == .inconclusive else { continue }
                open.insert(result.id)
                open.formUnion(claim.comparedWith ?? [])
            } else if !isPrecise(result) {
                open.insert(result.id)
            }
        }
        return open
    }
}
