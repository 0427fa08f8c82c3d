import Foundation
import Testing

@testable import Harness
@testable import PerfReport

@Suite struct GoogleBenchmarkFormatTests {
    func report() -> Report {
        let samples = [100.0, 110, 120].map { Sample(iterations: 10, wallNanoseconds: $0 * 10, cpuNanoseconds: $0 * 9) }
        let statistics = SampleStatistics.summarize(samples.map(\.wallNanosecondsPerOperation))
        let result = BenchmarkResult(
            id: "S/g/c[64]", suite: "S", group: "g", name: "c", parameter: 64, throughput: .bytes(64),
            samples: samples, wallTime: statistics, cpuTime: SampleStatistics.summarize([90, 99, 108]),
            allocationsPerOperation: 2)
        return Report(
            createdAt: Date(timeIntervalSince1970: 0),
            environment: EnvironmentCapture.capture(buildConfiguration: "release"),
            settings: TestSuites.settings(TestSuites.fast),
            clock: ClockInfo(source: "CLOCK_MONOTONIC", resolutionNanoseconds: 1, overheadNanoseconds: 20),
            metrics: [], benchmarks: [result])
    }

    @Test func hasContextIterationRowsAndAggregates() throws {
        let data = try GoogleBenchmarkFormat.encode(report(), executable: "perfkit")
        let document = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let context = try #require(document["context"] as? [String: Any])
        #expect(context["library_build_type"] as? String == "release")
        #expect(context["num_cpus"] as? Int == ProcessInfo.processInfo.activeProcessorCount)
        let rows = try #require(document["benchmarks"] as? [[String: Any]])
        let iterations = rows.filter { $0["run_type"] as? String == "iteration" }
        #expect(iterations.map { $0["repetition_index"] as? Int } == [0, 1, 2])
        #expect(iterations.allSatisfy { $0["name"] as? String == "S/g/c/64" && $0["time_unit"] as? String == "ns" })
        #expect(iterations.map { $0["real_time"] as? Double } == [100, 110, 120])
        #expect(iterations.map { $0["cpu_time"] as? Double } == [90, 99, 108])
        #expect(iterations[0]["bytes_per_second"] as? Double == 64 * 1e9 / 100)
        #expect(iterations[0]["allocations_per_op"] as? Double == 2)
        let aggregates = rows.filter { $0["run_type"] as? String == "aggregate" }
        #expect(
            aggregates.map { $0["name"] as? String } == [
                "S/g/c/64_mean", "S/g/c/64_median", "S/g/c/64_stddev", "S/g/c/64_cv",
            ])
        #expect(aggregates.allSatisfy { $0["run_name"] as? String == "S/g/c/64" && $0["repetitions"] as? Int == 3 })
        #expect(aggregates[1]["real_time"] as? Double == 110)
        #expect(aggregates[3]["aggregate_unit"] as? String == "percentage")
    }
}

@Suite struct MarkdownSummaryTests {
    func entry(_ id: String, _ verdict: ComparisonEntry.Verdict, ratio: Double) -> ComparisonEntry {
        var entry = ComparisonEntry(id: id, metric: .wallTime, thresholdPercent: 5, verdict: verdict, explanation: "x")
        entry.baselineMedian = 100
        entry.currentMedian = 100 * ratio
        entry.ratio = ratio
        entry.ratioConfidenceInterval = ConfidenceInterval(lower: ratio - 0.01, upper: ratio + 0.01, level: 0.95)
        entry.pValue = 0.001
        entry.adjustedPValue = 0.003
        return entry
    }

    @Test func listsRegressionsFirstLargestFirst() {
        let comparison = Comparison(
            baselineCreatedAt: nil, baselineEnvironment: nil, thresholdPercent: 5, alpha: 0.05,
            multipleComparisonControl: "holm",
            entries: [
                entry("a", .noChange, ratio: 1.0), entry("b", .regressed, ratio: 1.1),
                entry("c", .improved, ratio: 0.8), entry("d|x", .regressed, ratio: 1.3),
            ])
        let text = MarkdownSummary.comparison(comparison)
        #expect(text.contains("**2 regressed**, 1 improved, 1 unchanged or within noise"))
        let order = ["`d\\|x`", "`b`", "`c`", "`a`"].map { text.range(of: $0)!.lowerBound }
        #expect(order == order.sorted())
        #expect(text.contains("+30.0 %"))
        // The metric and the p-value as every output states them.
        #expect(
            text.contains(
                "| 🔴 regressed | `b` | wall time | 100 ns | 110 ns | +10.0 % | +9.0 % … +11.0 % | p = 0.003 |"))
    }
}
