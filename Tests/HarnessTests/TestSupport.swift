import Foundation
import PerfReport

@testable import Harness
import PerfStatistics

/// Builders for synthetic results and reports, so comparator tests state only what matters.
enum Synthetic {
    /// Normally distributed values (Box–Muller) from a fixed seed: the same every test run.
    static func normal(count: Int, mean: Double, relativeSpread: Double, seed: UInt64) -> [Double] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let u1 = max(generator.nextUnit(), .leastNonzeroMagnitude)
            let u2 = generator.nextUnit()
            let z = (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
            return mean * (1 + relativeSpread * z)
        }
    }

    static let environment = Environment(
        host: "test-host", os: "Debian 12", kernel: "6.1", cpuModel: "Test CPU", coreCount: 2, memoryBytes: nil,
        swiftVersion: "6.3.1", buildConfiguration: "release", gitCommit: nil, loadAverage: [0, 0, 0],
        cpuGovernor: nil)

    /// A result whose samples have the given ns/op values (each sample runs `iterations` operations).
    static func result(
        _ id: String, nanosecondsPerOperation values: [Double], iterations: Int = 1000,
        thresholdPercent: Double? = nil, instructionsPerOperation: Double? = nil,
        allocationsPerOperation: Double? = nil
    ) -> BenchmarkResult {
        let parts = id.split(separator: "/").map(String.init)
        let samples = values.map { Sample(iterations: iterations, wallNanoseconds: $0 * Double(iterations)) }
        // The comparator never reads `wallTime`; a cheap interval keeps 300-benchmark reports fast to build.
        return BenchmarkResult(
            id: id, suite: parts[0], group: parts[1], name: parts[2], thresholdPercent: thresholdPercent,
            samples: samples, wallTime: SampleStatistics.summarize(values, resamples: 100),
            allocationsPerOperation: allocationsPerOperation, instructionsPerOperation: instructionsPerOperation)
    }

    static func report(_ results: [BenchmarkResult], createdAt: Date = Date(timeIntervalSince1970: 1_700_000_000))
        -> Report
    {
        Report(
            createdAt: createdAt, environment: environment,
            settings: RunSettings(
                filter: nil, quick: false, samples: 25, timeBudgetSeconds: 1, warmupSeconds: 0.1,
                minSampleNanoseconds: 1_000_000, allocations: false, instructions: false),
            clock: ClockInfo(source: "CLOCK_MONOTONIC", resolutionNanoseconds: 1, overheadNanoseconds: 20),
            metrics: [MetricAvailability(metric: .wallTime, available: true)], benchmarks: results)
    }
}
