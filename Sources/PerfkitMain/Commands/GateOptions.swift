import ArgumentParser
import Foundation
import Harness
import PerfReport

/// How `perfkit run --baseline` gates: by wall time (the default, for a baseline measured on this
/// machine just now) or by machine-stable counts (for the committed `Reports/baseline.json`).
struct GateOptions: ParsableArguments {
    @Option(
        name: .customLong("gate-metric"),
        help: """
            Compare with --baseline by these exact counts instead of wall time: instructions, allocations \
            (comma-separated). Benchmarks without the metric on both sides are skipped with a note.
            """)
    var gateMetric: String?

    @Option(help: "Write the comparison as markdown (for a pull-request comment) to this file, atomically.")
    var summary: String?

    func validate() throws {
        _ = try metrics()
    }

    /// The gated metrics, or nil when comparing by wall time.
    func metrics() throws -> [Metric]? {
        guard let gateMetric else { return nil }
        var metrics: [Metric] = []
        for name in gateMetric.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard let metric = Metric(rawValue: name), BaselineGate.stableMetrics.contains(metric) else {
                let allowed = BaselineGate.stableMetrics.map(\.rawValue).joined(separator: ", ")
                throw ValidationError(
                    "--gate-metric: '\(name)' is not a machine-stable metric (use \(allowed); time is gated by `perfkit ci`)"
                )
            }
            if !metrics.contains(metric) { metrics.append(metric) }
        }
        guard !metrics.isEmpty else { throw ValidationError("--gate-metric: name at least one metric") }
        return metrics
    }

    func compare(baseline: Report, current: Report, comparator: Harness.Comparator) throws -> Comparison {
        if let metrics = try metrics() {
            return BaselineGate.compare(baseline: baseline, current: current, metrics: metrics, comparator: comparator)
        }
        return comparator.compare(baseline: baseline, current: current)
    }

    /// Writes the summary file when one was asked for.
    func writeSummary(_ text: String) throws {
        guard let summary else { return }
        do {
            try AtomicFile.write(Data(text.utf8), to: URL(fileURLWithPath: summary))
        } catch let error as AtomicFile.WriteError {
            throw PerfkitError(error.description)
        }
    }
}
