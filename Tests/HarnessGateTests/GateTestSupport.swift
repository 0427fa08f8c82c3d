import Foundation
import PerfReport

@testable import Harness

/// Builders for synthetic reports, so gate tests state only what matters.
enum GateFixtures {
    static let environment = Environment(
        host: "test-host", os: "Debian 12", kernel: "6.1", cpuModel: "Test CPU", coreCount: 2, memoryBytes: nil,
        swiftVersion: "6.3.1", buildConfiguration: "release", gitCommit: nil, loadAverage: [0, 0, 0],
        cpuGovernor: nil)

    /// A result whose samples have the given ns/op values (wall and CPU time alike).
    static func result(
        _ id: String, nanosecondsPerOperation values: [Double] = [10, 11, 12], iterations: Int = 1000,
        thresholdPercent: Double? = nil, instructions: Double? = nil, instructionsSource: String? = "callgrind",
        allocations: Double? = nil
    ) -> BenchmarkResult {
        let parts = id.split(separator: "/").map(String.init)
        let samples = values.map {
            Sample(
                iterations: iterations, wallNanoseconds: $0 * Double(iterations),
                cpuNanoseconds: $0 * Double(iterations))
        }
        return BenchmarkResult(
            id: id, suite: parts[0], group: parts[1], name: parts[2], thresholdPercent: thresholdPercent,
            samples: samples, wallTime: SampleStatistics.summarize(values), allocationsPerOperation: allocations,
            instructionsPerOperation: instructions, instructionsSource: instructions == nil ? nil : instructionsSource)
    }

    static func report(_ results: [BenchmarkResult], complete: Bool = true) -> Report {
        Report(
            createdAt: Date(timeIntervalSince1970: 1_700_000_000), complete: complete,
            incompleteReason: complete ? nil : "interrupted", environment: environment,
            settings: RunSettings(
                filter: nil, quick: true, samples: 8, timeBudgetSeconds: 0.1, warmupSeconds: 0.02,
                minSampleNanoseconds: 1_000_000, allocations: false, instructions: false),
            clock: ClockInfo(source: "CLOCK_MONOTONIC", resolutionNanoseconds: 1, overheadNanoseconds: 20),
            metrics: [MetricAvailability(metric: .wallTime, available: true)], benchmarks: results)
    }

    /// A result measured in processes: 6 samples a process, spread evenly ±`relativeSpread` around
    /// its median in `medians`, each tagged with its process.
    static func resultInProcesses(_ id: String, medians: [Double], relativeSpread: Double) -> BenchmarkResult {
        var values: [Double] = []
        var processes: [Int] = []
        for (process, median) in medians.enumerated() {
            values += spread(count: 6, mean: median, relativeSpread: relativeSpread, phase: process)
            processes += Array(repeating: process, count: 6)
        }
        var result = GateFixtures.result(id, nanosecondsPerOperation: values)
        for sample in result.samples.indices { result.samples[sample].process = processes[sample] }
        return result
    }

    /// Values spread evenly (a deterministic stand-in for noise) around `mean`, ±`relativeSpread`.
    static func spread(count: Int, mean: Double, relativeSpread: Double, phase: Int = 0) -> [Double] {
        (0..<count).map { index in
            let position = Double((index * 7 + phase) % count) / Double(max(count - 1, 1))
            return mean * (1 + relativeSpread * (2 * position - 1))
        }
    }
}
