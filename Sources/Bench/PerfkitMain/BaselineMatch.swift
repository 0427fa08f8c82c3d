import Harness
import PerfReport

/// Refuses a baseline that shares no benchmark with what it is compared with. Such a baseline is
/// another package's or another suite's (or the wrong file): compared, every benchmark would read
/// as added or removed, nothing as regressed, and a CI gate would pass without having compared
/// anything.
func requireSharedBenchmarks(baseline: Report, path: String, ids: Set<String>) throws {
    guard !ids.isEmpty, Set(baseline.benchmarks.map(\.id)).isDisjoint(with: ids) else { return }
    throw PerfkitError(
        .invalidInput,
        "\(path): shares no benchmark with this run (\(baseline.benchmarks.count) others, e.g. "
            + "\(baseline.benchmarks.first?.id ?? "none")): a baseline of another package or suite?")
}

/// Refuses to compare times taken under different conditions (``TimingConditions``): under
/// valgrind and natively, in different build configurations, on different processors. Such a
/// comparison measures the conditions, not the code — a native run against a baseline timed under
/// callgrind read "improved" on every benchmark and passed. Exact counts still compare.
func requireComparableTimes(baseline: TimingConditions, path: String, current: TimingConditions) throws {
    let reasons = baseline.differences(from: current)
    guard !reasons.isEmpty else { return }
    throw PerfkitError(
        .invalidInput,
        "\(path): cannot compare wall time: \(reasons.joined(separator: "; ")); gate on exact counts instead "
            + "(run --baseline \(path) --instructions --allocations --gate-metric instructions,allocations)")
}
