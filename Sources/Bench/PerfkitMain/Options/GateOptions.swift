import ArgumentParser
import Foundation
import Harness
import PerfReport

/// The baseline `run` and `merge` compare with, and how they gate on it: by wall time (the default, for a baseline measured on this
/// machine just now) or by machine-stable counts (for a committed baseline).
struct GateOptions: ParsableArguments {
    @Option(
        help: """
            Compare with this report: exit 2 on a regression, 3 when nothing regressed but a time could \
            not be judged because the machine was busy (retry).
            """)
    var baseline: String?

    @Option(
        name: .customLong("gate-metric"),
        help: """
            Compare with --baseline by these exact counts instead of wall time (comma-separated; time \
            is gated by `perfkit ci`). Benchmarks without the metric on both sides are skipped with a note.
            """)
    var gateMetric: GateMetrics?

    @Option(help: "Write the comparison as markdown (for a pull-request comment) to this file, atomically.")
    var summary: String?

    func validate() throws {
        if baseline == nil && (gateMetric != nil || summary != nil) {
            throw ValidationError("--gate-metric and --summary need --baseline")
        }
    }

    /// The baseline report, if one was given; an error when it cannot be read, shares no
    /// benchmark with `ids` (another package's baseline), or — gated on wall time — had its times
    /// taken under other conditions than `timing`'s (``TimingConditions``), before anything is
    /// measured or written.
    func loadBaseline(sharedWith ids: Set<String>, timing: TimingConditions) throws -> Report? {
        guard let baseline else { return nil }
        let report = try loadReport(baseline)
        try requireSharedBenchmarks(baseline: report, path: baseline, ids: ids)
        if gateMetric == nil {
            try requireComparableTimes(baseline: TimingConditions(of: report), path: baseline, current: timing)
        }
        return report
    }

    func compare(baseline: Report, current: Report, comparator: Harness.Comparator) throws -> Comparison {
        if let gateMetric {
            return BaselineGate.compare(
                baseline: baseline, current: current, metrics: gateMetric.metrics, comparator: comparator,
                remedies: .commandLine)
        }
        return comparator.compare(baseline: baseline, current: current)
    }

    /// Ends the command with the gate's exit status: 2 when a benchmark regressed, 3 when none did
    /// but one could not be judged (the machine was busy: worth a retry), otherwise it returns.
    static func exit(for comparison: Comparison?) throws {
        guard let comparison else { return }
        if comparison.hasRegression { throw ExitCode(2) }
        if comparison.isInconclusive { throw ExitCode(3) }
    }

    /// Writes the summary file when one was asked for.
    func writeSummary(_ text: String) throws {
        guard let summary else { return }
        do {
            try AtomicFile.write(Data(text.utf8), to: URL(fileURLWithPath: summary))
        } catch let error as AtomicFile.WriteError {
            throw PerfkitError(error)
        }
    }
}
