import ArgumentParser
import Foundation
import Harness
import PerfReport

/// The baseline `run` and `merge` compare with, and how they gate on it: by wall time (the default,
/// for a baseline measured on this machine just now) or by machine-stable counts (a committed baseline).
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

    @Option(
        help: ArgumentHelp(
            "The baseline's benchmark executable, to say what changed in the compiled code.",
            discussion: """
                With --instructions, a regressed benchmark lists the functions that grew most; with this, \
                each also says what changed in its machine code (calls, inlining, specialization, size).
                """))
    var baselineBinary: String?

    @Option(
        name: .customLong("decide-within"),
        help: ArgumentHelp(
            "Seconds the gate may spend measuring what its first look left undecided (default 20; 0: none).",
            discussion: """
                A run in processes (--processes N) whose time is within noise with an interval beyond the \
                threshold measures that benchmark in more processes, look after look, until it is decided \
                or this time is spent; with --baseline-binary both builds alternate, on fresh processes.
                """))
    var decideWithin: Double?

    func validate() throws {
        if let decideWithin, !(decideWithin >= 0) || !decideWithin.isFinite {
            throw ValidationError("--decide-within must be a number of seconds, 0 or more")
        }
        if baseline == nil && (gateMetric != nil || summary != nil) {
            throw ValidationError("--gate-metric and --summary need --baseline")
        }
        if baseline == nil && baselineBinary != nil { throw ValidationError("--baseline-binary needs --baseline") }
        if let baselineBinary, !FileManager.default.isReadableFile(atPath: baselineBinary) {
            throw ValidationError("--baseline-binary \(baselineBinary): no such readable file")
        }
    }

    /// `comparison` with what changed in the compiled code of the functions that grew most (or
    /// a note saying why it was not compared), against `--baseline-binary`.
    func explainCompiledCode(_ comparison: Comparison, current: Report) -> Comparison {
        CompiledCodeExplanation.attach(
            to: comparison, current: current, baseBinary: baselineBinary, newBinary: PerfkitProcess.original.path)
    }

    /// The baseline to gate on, read and admitted by the gate these options ask for (on exact counts
    /// with `--gate-metric`, else on wall time); nil without `--baseline`. An unreadable or refused
    /// baseline (``RegressionGate/admit(baseline:currentIDs:timing:)``) is an error before anything
    /// is measured or written.
    func resolve(_ comparison: ComparisonOptions, sharedWith ids: Set<String>, timing: TimingConditions) throws
        -> GatedBaseline?
    {
        guard let baseline else { return nil }
        var gate = RegressionGate(
            comparator: comparison.comparator,
            basis: gateMetric.map { .counts($0.metrics, remedies: .commandLine) } ?? .time(.wallTime))
        if let decideWithin { gate.moreProcesses.budgetSeconds = decideWithin }
        let report = try loadReport(baseline)
        try admit(report, path: baseline, currentIDs: ids, timing: timing, gate: gate)
        return GatedBaseline(path: baseline, report: report, gate: gate, binary: baselineBinary)
    }

    /// Writes the summary file when one was asked for.
    func writeSummary(_ text: String) throws {
        guard let summary else { return }
        try writeOutput(Data(text.utf8), to: URL(fileURLWithPath: summary))
    }
}

/// The baseline a command gates on, resolved once from ``GateOptions``.
struct GatedBaseline {
    /// As given to `--baseline`, for messages.
    var path: String
    var report: Report
    var gate: RegressionGate
    /// `--baseline-binary`: the baseline's benchmark executable, when given.
    var binary: String?
}

extension RegressionGate.Status {
    /// Ends the command with this status unless it passed: 2 regressed, 3 inconclusive (retry).
    func exit() throws {
        if self != .passed { throw ExitCode(rawValue) }
    }
}
