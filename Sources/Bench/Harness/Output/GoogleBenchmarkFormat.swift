import Foundation
import PerfReport

/// Writes a report as Google Benchmark's JSON output (`--benchmark_format=json` with
/// repetitions), so its `compare.py` and github-action-benchmark's `googlecpp` mode read it.
///
/// Each perfkit sample becomes one `iteration` row (a repetition); the aggregate rows `_mean`,
/// `_median`, `_stddev` and `_cv` follow, as Google Benchmark emits them. Counted metrics become
/// user counters on every row.
public enum GoogleBenchmarkFormat {
    public static func encode(_ report: Report, executable: String) throws -> Data {
        let formatter = ISO8601DateFormatter()
        let environment = report.environment
        var context: [String: Any] = [
            "date": formatter.string(from: report.createdAt),
            "host_name": environment.host,
            "executable": executable,
            "num_cpus": environment.coreCount,
            "mhz_per_cpu": 0,
            "cpu_scaling_enabled": environment.cpuGovernor.map { $0 != "performance" } ?? false,
            "caches": [Any](),
            "load_avg": environment.loadAverage,
            "library_build_type": environment.buildConfiguration == "release" ? "release" : "debug",
            "library_version": "perfkit \(report.tool.version)",
        ]
        if let commit = environment.gitCommit { context["git_commit"] = commit }

        var rows: [[String: Any]] = []
        for (familyIndex, result) in report.benchmarks.enumerated() {
            let name = googleName(result)
            let repetitions = result.samples.count
            let counters = userCounters(result)
            for (index, sample) in result.samples.enumerated() {
                var row: [String: Any] = [
                    "name": name,
                    "family_index": familyIndex,
                    "per_family_instance_index": 0,
                    "run_name": name,
                    "run_type": "iteration",
                    "repetitions": repetitions,
                    "repetition_index": index,
                    "threads": 1,
                    "iterations": sample.iterations,
                    "real_time": sample.wallNanosecondsPerOperation,
                    "cpu_time": (sample.cpuNanoseconds ?? sample.wallNanoseconds) / Double(max(sample.iterations, 1)),
                    "time_unit": "ns",
                ]
                addThroughput(result, nanosecondsPerOperation: sample.wallNanosecondsPerOperation, to: &row)
                row.merge(counters) { current, _ in current }
                rows.append(row)
            }
            let cpu = result.cpuTime ?? result.wallTime
            let aggregates: [(String, Double, Double, String)] = [
                ("mean", result.wallTime.mean, cpu.mean, "time"),
                ("median", result.wallTime.median, cpu.median, "time"),
                ("stddev", result.wallTime.standardDeviation, cpu.standardDeviation, "time"),
                ("cv", result.wallTime.coefficientOfVariation, cpu.coefficientOfVariation, "percentage"),
            ]
            for (aggregate, real, cpuTime, unit) in aggregates {
                var row: [String: Any] = [
                    "name": "\(name)_\(aggregate)",
                    "family_index": familyIndex,
                    "per_family_instance_index": 0,
                    "run_name": name,
                    "run_type": "aggregate",
                    "repetitions": repetitions,
                    "threads": 1,
                    "aggregate_name": aggregate,
                    "aggregate_unit": unit,
                    "iterations": repetitions,
                    "real_time": real,
                    "cpu_time": cpuTime,
                    "time_unit": "ns",
                ]
                if unit == "time" && aggregate != "stddev" {
                    addThroughput(result, nanosecondsPerOperation: real, to: &row)
                }
                rows.append(row)
            }
        }
        let document: [String: Any] = ["context": context, "benchmarks": rows]
        var data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
        data.append(0x0A)
        return data
    }

    /// Google Benchmark names parameters as path components: `suite/group/case/1024`.
    static func googleName(_ result: BenchmarkResult) -> String {
        let base = "\(result.suite)/\(result.group)/\(result.name)"
        return result.parameter.map { "\(base)/\($0)" } ?? base
    }

    static func addThroughput(_ result: BenchmarkResult, nanosecondsPerOperation: Double, to row: inout [String: Any]) {
        guard let throughput = result.throughput else { return }
        let key = throughput.unit == .bytes ? "bytes_per_second" : "items_per_second"
        row[key] = throughput.perSecond(nanosecondsPerOperation: nanosecondsPerOperation)
    }

    static func userCounters(_ result: BenchmarkResult) -> [String: Any] {
        var counters: [String: Any] = [:]
        if let value = result.allocationsPerOperation { counters["allocations_per_op"] = value }
        if let value = result.allocatedBytesPerOperation { counters["allocated_bytes_per_op"] = value }
        if let value = result.instructionsPerOperation { counters["instructions_per_op"] = value }
        for (key, value) in result.counters { counters[key] = value }
        return counters
    }
}
