import Foundation

@testable import PerfReport

/// Small, fully populated reports for coding tests.
enum ReportFixtures {
    static func statistics(median: Double) -> Statistics {
        Statistics(
            count: 3, min: median - 1, max: median + 1, mean: median, median: median, standardDeviation: 1,
            coefficientOfVariation: 1 / median, medianAbsoluteDeviation: 1, p90: median + 0.8, p99: median + 0.98,
            medianConfidenceInterval: ConfidenceInterval(lower: median - 1, upper: median + 1, level: 0.95),
            outliers: OutlierCounts(highMild: 1))
    }

    static func report() -> Report {
        let samples = [10.0, 11, 12].map { Sample(iterations: 100, wallNanoseconds: $0 * 100, cpuNanoseconds: $0 * 99) }
        let result = BenchmarkResult(
            id: "Suite/group/case[8]", suite: "Suite", group: "group", name: "case", parameter: 8,
            throughput: .bytes(64), samples: samples, wallTime: statistics(median: 11),
            warnings: [Warning(rule: "r", message: "m")], counters: ["observerFirings": 1],
            claim: Claim(statement: "s", verdict: .held, evidence: "e"),
            compiledForm: CompiledForm(kind: .vtable, symbol: "$s4main1fyyF", evidence: ["call *0x50(%rax)"]))
        return Report(
            createdAt: Date(timeIntervalSince1970: 1_795_320_000),
            environment: Environment(
                host: "h", os: "Debian", kernel: "6.1", cpuModel: "cpu", coreCount: 2, memoryBytes: 1 << 30,
                swiftVersion: "6.3.1", buildConfiguration: "release", gitCommit: "abc", loadAverage: [0.1, 0.2, 0.3],
                cpuGovernor: nil),
            settings: RunSettings(
                filter: nil, quick: true, samples: 3, timeBudgetSeconds: 0.1, warmupSeconds: 0.01,
                minSampleNanoseconds: 1e6, allocations: false, instructions: false),
            clock: ClockInfo(source: "CLOCK_MONOTONIC", resolutionNanoseconds: 1, overheadNanoseconds: 20),
            metrics: [MetricAvailability(metric: .instructions, available: false, reason: "not supported")],
            benchmarks: [result])
    }
}
