import Foundation
import PerfReport

/// A regression in time that the rest of the run shares is not told apart from the machine.
///
/// Why: on this project's VM the host's speed moves in steps over minutes — four unrelated
/// benchmarks (a deque, a hash set, a heap, a sort) measured quiet, then with two busy neighbours,
/// then quiet again, all took 10–13% more CPU time per operation in the last two runs alike
/// (2026-11-25 23:43, `Examples/collections-gate`): the machine, not the neighbours and not the
/// code. A candidate measured in such a minute against a baseline of a faster one showed innocent
/// benchmarks "regressed" (#36's trials: 3 of 10 unchanged runs with both cores busy). Time alone
/// cannot tell a slower machine from a change that slows every benchmark; instruction counts, or
/// both builds measured interleaved, can. So when a regressed benchmark's fellow benchmarks moved
/// the same way — their median ratio beyond half the threshold — its ratio is divided by theirs:
/// still beyond the threshold, it stands; within it, it is *inconclusive*, with the figures, rather
/// than a verdict time cannot back. (Judging on the others' median alone, at ≥ 1.025, turned 3 of
/// 60 real heap regressions of +11–18% into "inconclusive" in the second trials, 2026-11-26.) A
/// change confined to some benchmarks, the usual kind, leaves the others' median near 1.
enum MachineShift {
    /// The others' median ratio must reach this share of the threshold to speak for the machine.
    static let shareOfThreshold = 0.5
    /// Fewer other benchmarks than this say nothing about the machine.
    static let minimumOthers = 3

    static func review(_ entries: [ComparisonEntry]) -> [ComparisonEntry] {
        let timed = entries.filter { ($0.metric == .wallTime || $0.metric == .cpuTime) && $0.ratio != nil }
        guard timed.count > minimumOthers else { return entries }
        return entries.map { entry in
            guard entry.verdict == .regressed, entry.metric == .wallTime || entry.metric == .cpuTime else {
                return entry
            }
            let others = timed.filter { $0.id != entry.id }.compactMap(\.ratio)
            guard others.count >= minimumOthers else { return entry }
            let median = SampleStatistics.median(others)
            guard median >= 1 + entry.thresholdPercent * shareOfThreshold / 100, let ratio = entry.ratio else {
                return entry
            }
            var reviewed = entry
            let relative = ratio / median
            if relative >= 1 + entry.thresholdPercent / 100 {
                // Slower than the machine's share explains by more than the threshold: it stands.
                reviewed.review(
                    .beyondSharedSlowdown(otherBenchmarks: others.count, medianRatio: median, relativeRatio: relative))
            } else {
                reviewed.review(
                    .withinSharedSlowdown(otherBenchmarks: others.count, medianRatio: median, relativeRatio: relative),
                    verdict: .inconclusive)
            }
            return reviewed
        }
    }
}
