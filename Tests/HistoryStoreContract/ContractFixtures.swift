import Foundation
import PerfkitHistory
import PerfReport

/// The runs and report files the contract adds: every field set in one, the optional ones missing
/// in another, names a statement would have to quote.
public enum ContractFixtures {
    public static let machine = MachineFingerprint(
        host: "ci-1", cpuModel: "Test CPU @ 2.0GHz", coreCount: 2, kernel: "6.1.0-28-cloud-amd64",
        swiftVersion: "6.3.1", buildConfiguration: "release")
    public static let laptop = MachineFingerprint(
        host: "laptop", cpuModel: "Other CPU", coreCount: 8, kernel: "6.8", swiftVersion: "6.3.1",
        buildConfiguration: "debug")

    /// A 40-character hash for commit number `n`.
    public static func commit(_ n: Int) -> String { String(format: "%040x", 0xc0ffee_0000 + n) }

    /// A GNU build ID as a 64-bit build's linker writes it (20 bytes, hex).
    public static let buildID = "4f1c0d2e9a7b3c6d5e8f01a2b3c4d5e6f7a8b9c0"

    /// Run `n` of `machine`: four metrics of two benchmarks, a threshold, a claim verdict and build
    /// IDs on some, and a creation time with a fraction of a second (a store that rounds it changes
    /// the run).
    public static func run(_ n: Int, machine: MachineFingerprint = machine) -> HistoryRun {
        HistoryRun(
            digest: "sha256:\(n)-\(machine.key)", machine: machine, commit: commit(n), dirty: n % 3 == 0,
            commitPosition: n, branch: "main",
            createdAt: Date(timeIntervalSince1970: 1_790_000_000.123_456 + Double(n)),
            profile: "quick", complete: true,
            results: [
                HistoryResult(
                    benchmark: "Demo/work/sum", metric: .wall, value: 1000.5 + Double(n), lower: 990.25, upper: 1010.75,
                    sampleCount: 10, thresholdPercent: 5, executableBuildID: buildID),
                HistoryResult(
                    benchmark: "Demo/work/sum", metric: .cpu, value: 998, lower: 990, upper: 1005, sampleCount: 10,
                    executableBuildID: buildID),
                HistoryResult(benchmark: "Demo/work/sum", metric: .instructions, value: 51_234, sampleCount: 1),
                HistoryResult(
                    benchmark: "Demo/it's \"quoted\"; ünïcode", metric: .allocations, value: 2, sampleCount: 10,
                    claimVerdict: "held"),
            ])
    }

    /// A run with every optional field missing: no commit, branch or profile, incomplete, a named
    /// machine, a result without an interval.
    public static func sparseRun(_ n: Int) -> HistoryRun {
        var machine = laptop
        machine.name = "ci-large"
        return HistoryRun(
            digest: "sha256:sparse-\(n)", machine: machine, commit: nil, dirty: false, commitPosition: nil, branch: nil,
            createdAt: Date(timeIntervalSince1970: 1_790_100_000 + Double(n)), profile: nil, complete: false,
            results: [HistoryResult(benchmark: "Demo/work/sort", metric: .wall, value: 12.5, sampleCount: 3)])
    }

    /// Writes a report with one benchmark (`Demo/work/sum`, `instructions` per operation), created
    /// `minute` minutes after a fixed time (which makes it a different run), measured on `host` at
    /// `commit`, to `url`.
    public static func writeReport(
        commit: String? = nil, host: String = "ci-1", instructions: Double = 1000, minute: Int = 0, to url: URL
    ) throws {
        let stats = Statistics(
            count: 10, min: 99, max: 101, mean: 100, median: 100, standardDeviation: 1, coefficientOfVariation: 0.01,
            medianAbsoluteDeviation: 0.5, p90: 101, p99: 101,
            medianConfidenceInterval: ConfidenceInterval(lower: 99.5, upper: 100.5, level: 0.95),
            outliers: OutlierCounts())
        let report = Report(
            createdAt: Date(timeIntervalSince1970: 1_790_000_000 + Double(minute * 60)),
            environment: Environment(
                host: host, os: "o", kernel: "k", cpuModel: "c", coreCount: 2, memoryBytes: nil, swiftVersion: "6.3",
                buildConfiguration: "release", gitCommit: commit, loadAverage: [], cpuGovernor: nil),
            settings: RunSettings(
                filter: nil, quick: true, samples: 10, timeBudgetSeconds: 0.1, warmupSeconds: 0.1,
                minSampleNanoseconds: 1e6, allocations: false, instructions: true),
            clock: ClockInfo(source: "CLOCK_MONOTONIC", resolutionNanoseconds: 1, overheadNanoseconds: 20),
            metrics: [],
            benchmarks: [
                BenchmarkResult(
                    id: "Demo/work/sum", suite: "Demo", group: "work", name: "sum",
                    samples: [Sample(iterations: 1000, wallNanoseconds: 100_000)], wallTime: stats,
                    instructionsPerOperation: instructions, instructionsSource: "callgrind")
            ])
        try ReportCoding.write(report, to: url)
    }
}

/// A value several threads write, behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
