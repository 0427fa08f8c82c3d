import ArgumentParser
import Foundation
import Harness
import PerfReport

struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare two reports benchmark by benchmark.",
        discussion: """
            A benchmark regressed when the Mann-Whitney U test finds the difference significant (after \
            Holm correction across all benchmarks) and the median moved beyond the threshold. A report \
            measured in several processes (run --processes N) is compared by its processes' medians \
            instead (a t-test on their logarithms), so a difference inside what separate processes show \
            is not a regression. When one side waited for a CPU (busy machine), CPU time is compared, and what \
            it does not decide is inconclusive. \
            Times taken under different conditions (one under valgrind, a debug against a release \
            build, another processor) are not compared: compare exact counts with `run --baseline … \
            --gate-metric instructions,allocations` instead. \
            A pprof pair (profiles/ beside the new report, as `run` writes it) comes only with an \
            instruction count regression, which this time gate does not make: a regression whose two \
            reports carry function profiles says so on stderr. \
            Exit codes: 0 no regression, 2 regression, 3 no regression but a time \
            not judged because one side's machine was busy, 1 usage or input error.
            """
    )

    @Argument(help: "The baseline report (report.json).")
    var base: String

    @Argument(help: "The new report (report.json).")
    var new: String

    @OptionGroup var options: ComparisonOptions

    @Option(help: "Output format: text or markdown (for a pull-request comment).")
    var format: SummaryFormat = .text

    @Option(name: .shortAndLong, help: "Also write the summary to this file (atomically).")
    var output: String?

    typealias SummaryFormat = ComparisonFormat

    func run() throws {
        let baseline = try loadReport(base)
        let current = try loadReport(new)
        let gate = options.gate()
        try admit(
            baseline, path: base, currentIDs: Set(current.benchmarks.map(\.id)), timing: TimingConditions(of: current),
            gate: gate)
        let decision = gate.decide(baseline: baseline, current: current)
        let summary = format.render(decision.comparison)
        print(summary, terminator: "")
        if let output {
            try writeOutput(Data(summary.utf8), to: URL(fileURLWithPath: output))
        }
        // The pairs where the gate found where a count grew, else why none; on stderr, as stdout is
        // the summary, which may be posted as it is.
        let profiles = FunctionProfileFiles.write(
            decision.comparison, baseline: baseline, current: current, beside: URL(fileURLWithPath: new))
        for line in profiles { printError(line + "\n") }
        try decision.status.exit()
    }
}
