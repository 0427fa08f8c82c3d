import Foundation
import Harness
import PerfReport

/// `run --processes N --baseline`: a time regression is measured once more before it fails a build.
///
/// Why: the wall-time gate counts a candidate's processes as one draw from the baseline's, and a
/// draw that a short slow stretch of the host lands on looks like a regression of whichever
/// benchmarks it covered. In #36's trials on a quiet hour (2026-11-25 23:31, 10 trials per row)
/// this gate caught every +5% and +10% heap regression and flagged one unchanged run: `deque/churn`
/// alone, its neighbours in the same run unmoved. A second draw taken right after — the flagged
/// benchmarks only, in as many processes — separates the two: a real regression is there again, a
/// slow stretch mostly is not. A regression both draws show stands; one the second draw does not
/// show is *within noise* (or *inconclusive* when the second draw could not judge it), with both
/// figures in the entry.
enum RegressionConfirmation {
    /// Processes of the second look: one is one more draw, as three would be (a candidate's
    /// processes count as one draw); with both cores busy, two made a run of the four collections
    /// benchmarks 9.8 s on average and 10.8 s at most, above #36's 10 s.
    static let processes = 1

    /// The benchmarks of `comparison` that regressed in time (counts need no second look: exact).
    static func suspects(_ comparison: Comparison) -> [String] {
        comparison.entries.filter { $0.verdict == .regressed && ($0.metric == .wallTime || $0.metric == .cpuTime) }
            .map(\.id)
    }

    /// A `--filter` that selects exactly `ids`.
    static func filter(selecting ids: [String]) -> String {
        "^(" + ids.map { NSRegularExpression.escapedPattern(for: $0) }.joined(separator: "|") + ")$"
    }

    /// `first` with each suspect judged again by `second`'s entry for it.
    static func apply(first: Comparison, second: Comparison) -> Comparison {
        let again = Dictionary(second.entries.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var confirmed = first
        confirmed.entries = first.entries.map { entry in
            guard entry.verdict == .regressed, entry.metric == .wallTime || entry.metric == .cpuTime else {
                return entry
            }
            var reviewed = entry
            guard let repeat_ = again[entry.id] else {
                reviewed.verdict = .inconclusive
                reviewed.explanation += "; a second measurement to confirm it gave no result"
                return reviewed
            }
            let figure = repeat_.ratio.map { " (ratio \(String(format: "%.3f", $0)))" } ?? ""
            switch repeat_.verdict {
            case .regressed:
                reviewed.explanation += "; confirmed by a second measurement\(figure)"
            case .inconclusive:
                reviewed.verdict = .inconclusive
                reviewed.explanation += "; a second measurement could not judge it\(figure): \(repeat_.explanation)"
            default:
                reviewed.verdict = .withinNoise
                reviewed.explanation +=
                    "; not confirmed: a second measurement right after found \(repeat_.verdict.rawValue)\(figure), "
                    + "so the first was a slow stretch of the machine rather than the code"
            }
            return reviewed
        }
        return confirmed
    }
}
