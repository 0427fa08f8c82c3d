import PerfReport

/// Refuses a baseline that shares no benchmark with what it is compared with. Such a baseline is
/// another package's or another suite's (or the wrong file): compared, every benchmark would read
/// as added or removed, nothing as regressed, and a CI gate would pass without having compared
/// anything.
func requireSharedBenchmarks(baseline: Report, path: String, ids: Set<String>) throws {
    guard !ids.isEmpty, Set(baseline.benchmarks.map(\.id)).isDisjoint(with: ids) else { return }
    throw PerfkitError(
        "\(path): shares no benchmark with this run (\(baseline.benchmarks.count) others, e.g. "
            + "\(baseline.benchmarks.first?.id ?? "none")): a baseline of another package or suite?")
}
