import Foundation
import PerfkitHistory
import PerfReport
import PerfStatistics

/// Runs and reports built in code, so the history tests state only what matters to them.
enum HistoryFixtures {
    static let machine = MachineFingerprint(
        host: "ci-1", cpuModel: "Test CPU", coreCount: 2, kernel: "6.1", swiftVersion: "6.3.1",
        buildConfiguration: "release")
    static let otherMachine = MachineFingerprint(
        host: "laptop", cpuModel: "Other CPU", coreCount: 8, kernel: "6.8", swiftVersion: "6.3.1",
        buildConfiguration: "release")

    /// A 40-character hash for commit number `n` (position n on the first-parent history).
    static func commit(_ n: Int) -> String { String(format: "%040x", 0xc0ffee_0000 + n) }

    static let order = CommitOrder(oldestFirst: (1...40).map(commit))

    /// One run of commit `n` with the given values per benchmark and metric.
    static func run(
        commit n: Int, machine: MachineFingerprint = machine, dirty: Bool = false, sequence: Int = 0,
        _ values: [String: [HistoryMetric: Double]], threshold: Double? = nil, buildID: String? = nil
    ) -> HistoryRun {
        HistoryRun(
            digest: "run-\(n)-\(sequence)-\(machine.host)-\(dirty)", machine: machine, commit: commit(n), dirty: dirty,
            commitPosition: n, branch: "main",
            createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(n * 100 + sequence)),
            profile: "quick", complete: true,
            results: values.sorted { $0.key < $1.key }.flatMap { benchmark, metrics in
                metrics.sorted { $0.key < $1.key }.map { metric, value in
                    HistoryResult(
                        benchmark: benchmark, metric: metric, value: value, lower: metric.isTime ? value * 0.99 : nil,
                        upper: metric.isTime ? value * 1.01 : nil, sampleCount: 10, thresholdPercent: threshold,
                        executableBuildID: buildID)
                }
            })
    }

    /// Seeded normal noise around 1 (Box–Muller on SplitMix64): the same values every test run.
    static func noise(count: Int, relativeSpread: Double, seed: UInt64) -> [Double] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let u1 = max(generator.nextUnit(), .leastNonzeroMagnitude)
            let z = (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * generator.nextUnit())
            return 1 + relativeSpread * z
        }
    }

    /// A small valid report (two benchmarks) measured at `commit` on `environment`'s machine.
    static func report(
        commit: String?, host: String = "ci-1", createdAt: Date = Date(timeIntervalSince1970: 1_700_000_000),
        wall: Double = 1000, instructions: Double? = 5000
    ) -> Report {
        let environment = Environment(
            host: host, os: "Debian 12", kernel: "6.1", cpuModel: "Test CPU", coreCount: 2, memoryBytes: nil,
            swiftVersion: "6.3.1", buildConfiguration: "release", gitCommit: commit, loadAverage: [0, 0, 0],
            cpuGovernor: nil)
        func statistics(_ median: Double) -> Statistics {
            Statistics(
                count: 10, min: median * 0.98, max: median * 1.02, mean: median, median: median,
                standardDeviation: median * 0.01, coefficientOfVariation: 0.01, medianAbsoluteDeviation: median * 0.005,
                p90: median * 1.01, p99: median * 1.02,
                medianConfidenceInterval: ConfidenceInterval(lower: median * 0.99, upper: median * 1.01, level: 0.95),
                outliers: OutlierCounts())
        }
        let benchmarks = ["Demo/work/sum", "Demo/work/sort"].map { id in
            BenchmarkResult(
                id: id, suite: "Demo", group: "work", name: String(id.split(separator: "/")[2]),
                samples: [Sample(iterations: 100, wallNanoseconds: wall * 100)], wallTime: statistics(wall),
                cpuTime: statistics(wall * 0.99), instructionsPerOperation: instructions,
                instructionsSource: instructions == nil ? nil : "callgrind")
        }
        return Report(
            createdAt: createdAt, environment: environment,
            settings: RunSettings(
                filter: nil, quick: true, samples: 10, timeBudgetSeconds: 0.12, warmupSeconds: 0.05,
                minSampleNanoseconds: 1_000_000, allocations: false, instructions: instructions != nil, profile: "quick"
            ),
            clock: ClockInfo(source: "CLOCK_MONOTONIC", resolutionNanoseconds: 1, overheadNanoseconds: 20),
            metrics: [MetricAvailability(metric: .wallTime, available: true)], benchmarks: benchmarks)
    }
}
