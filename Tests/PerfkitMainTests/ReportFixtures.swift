import Foundation
import PerfReport

/// Reports for the command tests: one test host, a quick instructions run.
enum ReportFixtures {
    static func report(_ benchmarks: [BenchmarkResult]) -> Report {
        Report(
            createdAt: Date(timeIntervalSince1970: 0),
            environment: Environment(
                host: "test-host", os: "Debian 12", kernel: "6.1", cpuModel: "Test CPU", coreCount: 2,
                memoryBytes: nil, swiftVersion: "6.3.1", buildConfiguration: "release", gitCommit: nil,
                loadAverage: [0, 0, 0], cpuGovernor: nil),
            settings: RunSettings(
                filter: nil, quick: true, samples: 3, timeBudgetSeconds: 0.1, warmupSeconds: 0.02,
                minSampleNanoseconds: 1_000_000, allocations: false, instructions: true),
            clock: ClockInfo(source: "CLOCK_MONOTONIC", resolutionNanoseconds: 1, overheadNanoseconds: 20),
            metrics: [MetricAvailability(metric: .wallTime, available: true)], benchmarks: benchmarks)
    }
}
