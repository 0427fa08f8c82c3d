import ArgumentParser
import Foundation
import Harness
import PerfkitHistory
import PerfReport

#if canImport(Glibc)
    import Glibc
#endif

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the benchmarks and write a report.",
        discussion: """
            Writes <output>/<timestamp>/report.json (plus the other formats asked for) and prints a \
            table. With --baseline, compares with that report and exits 2 when a benchmark regressed, \
            3 when none did but one could not be judged because the machine was busy. \
            Ctrl-C stops after the current sample and writes what finished, marked incomplete.
            """
    )

    @Option(help: "Only run benchmarks whose id (suite/group/case[param]) matches this regular expression.")
    var filter: String?

    @Flag(
        help: """
            The CI configuration: fewer and shorter samples in one round, and claims decided only on \
            evidence that would have stopped a default run at its first look (otherwise inconclusive).
            """)
    var quick = false

    @Flag(
        help: """
            Every benchmark takes all its samples (GCD comparisons 100-200 one-sample visits), twice as \
            long as the default's, instead of stopping once its answer is clear: for the close calls a \
            default run leaves inconclusive (about 9 minutes for perfkit's own suites on 2 cores).
            """)
    var thorough = false

    @Option(help: "Samples per benchmark (default 25, or 10 with --quick).")
    var samples: Int?

    @Option(
        help: """
            Rounds over the selection (default 5, or 1 with --quick): each benchmark's samples are \
            spread over them, from a fresh instance each round, so one noisy moment touches only part \
            of them. Benchmarks that take every sample from a fresh instance (GCD contention and hops \
            take 4 times the samples, fan-outs 8 times; at most 20 with --quick unless --samples is \
            given, 40 by default, unlimited with --thorough) give the run as many rounds as their samples.
            """)
    var rounds: Int?

    @Option(
        name: .customLong("time-budget"),
        help: "Seconds of measurement per benchmark (default 0.5, 1 with --thorough, 0.12 with --quick).")
    var timeBudget: Double?

    @OptionGroup var destination: ReportOutputOptions<JSONOnly>

    @OptionGroup var comparison: ComparisonOptions

    @OptionGroup var gate: GateOptions

    @OptionGroup var history: RunHistoryOptions

    @Flag(help: "Count allocations per operation (re-executes this executable with malloc-interposer preloaded).")
    var allocations = false

    @Flag(
        help: """
            Count instructions per operation deterministically: re-executes this executable under valgrind's callgrind, \
            counting only the measured regions (iterations are then sized by instructions, not time).
            """)
    var instructions = false

    @Flag(
        inversion: .prefixedNo,
        help: """
            Take a time profile of every benchmark: after its measurement, a pass of 0.5-2 s (until 300 \
            samples) with its thread's CPU time sampled every 1 ms (Probe's sampler), into the report \
            (not with --instructions, whose callgrind profile counts instructions by function already). \
            On by default for a baseline measured in processes (--processes N without --baseline) of at \
            most 20 benchmarks, in its first process: a later gate can then say where a time regression \
            grew; --no-profile skips it.
            """)
    var profile: Bool?

    @Flag(help: "Measure a debug build anyway (its numbers say little about release performance).")
    var allowDebugBuild = false

    @Option(
        help: ArgumentHelp(
            "Measure in this many processes, one after another, and record each benchmark's median per process.",
            discussion: """
                What one process fixes for all its samples (Swift's per-process hash seed, the memory layout, \
                the machine's state of that minute) moves a benchmark's median from one process to the next. \
                A baseline measured in several processes lets the comparison tell that spread from a \
                regression: a difference inside it is not one. 10 for a baseline is a good start; a \
                candidate's processes average out their own hash seeds and layouts.
                """))
    var processes = 1

    @Option(
        name: .customLong("spread-processes"),
        help: ArgumentHelp(
            "Processes a baseline adds for each benchmark whose processes lie more than 15% apart.",
            discussion: """
                Only when recording a baseline (--processes 8 or more, no --baseline); default: twice \
                --processes. Each measures those benchmarks with the quickest others (for the machine's \
                factor): a gate's interval against a stored baseline narrows only as far as its processes \
                allow. Then \(RunCommand.fixedHashSeedProcessCount) with Swift's hash seed fixed (SWIFT_DETERMINISTIC_HASHING=1), for the finding: \
                whether the seed is what moves them. 0 skips both.
                """))
    var spreadProcesses: Int?

    /// Given by `--processes` to each child it starts (``ProcessRuns``): measure here and write only
    /// the JSON report under this folder.
    @Option(name: .customLong("child-report-directory"), help: .hidden)
    var childReportDirectory: String?

    func validate() throws {
        if let samples, samples < 2 { throw ValidationError("--samples must be at least 2") }
        if let rounds, rounds < 1 { throw ValidationError("--rounds must be at least 1") }
        if quick && thorough { throw ValidationError("--quick and --thorough cannot be combined") }
        if let timeBudget, !(timeBudget > 0) || !timeBudget.isFinite {
            throw ValidationError("--time-budget must be a positive number of seconds")
        }
        if processes < 1 { throw ValidationError("--processes must be at least 1") }
        if let spreadProcesses, spreadProcesses < 0 {
            throw ValidationError("--spread-processes must be 0 or more")
        }
        if processes > 1 && instructions {
            throw ValidationError("--processes measures time; instruction counts do not differ between processes")
        }
        try comparison.validate()
    }

    func run() throws {
        if buildConfiguration == "debug" && !allowDebugBuild {
            throw PerfkitError(
                .invalidInput,
                "this is a debug build; benchmark a release build (swift build -c release) or pass --allow-debug-build")
        }
        // A parent of several processes only merges: each child re-executes itself as it needs.
        let measuresHere = processes == 1 || childReportDirectory != nil
        if allocations && !InterposedAllocationCounter.isPreloaded && measuresHere {
            try InterposedAllocationCounter.reexecWithInterposer()
        }
        if profile == true && instructions && !CallgrindLauncher.isChild {
            printError("run: --profile takes no time profile under --instructions: callgrind profiles instructions\n")
        }
        if instructions && !CallgrindLauncher.isChild { try CallgrindLauncher.runUnderCallgrind() }
        let selection = try selectedBenchmarks(filter)
        if let childReportDirectory {
            // One process of a parent's --processes (``ProcessRuns``): its JSON report, nothing else.
            let writer = try ReportWriter.prepare(outputRoot: childReportDirectory, timestamp: Date())
            InterruptFlag.install()
            let report = measure(selection)
            _ = try writer.write(report, formats: [.json], baseline: nil)
            if !report.complete && InterruptFlag.isSet { throw ExitCode(130) }
            return
        }
        let formats = destination.formats
        // Read the baseline and prepare the output before measuring: bad input fails in a second.
        let ids = selection.benchmarks.flatMap { benchmark in
            selection.parameters(of: benchmark).map { benchmark.id(parameter: $0) }
        }
        let baseline = try gate.resolve(
            comparison, sharedWith: Set(ids),
            timing: .here(buildConfiguration: buildConfiguration, underValgrind: instructions))
        let writer = try ReportWriter.prepare(outputRoot: destination.output, timestamp: Date())
        let historyStore = try history.open()

        InterruptFlag.install()
        var report: Report
        if processes > 1 {
            let profileFirst =
                profile == nil
                && Self.profilesByDefault(
                    benchmarks: ids.count, gating: baseline != nil, instructions: instructions)
            if profileFirst {
                printError(
                    "run: time profiles of the first process kept, for a later gate to say where a time regression grew (--no-profile skips them)\n"
                )
            }
            report = try ProcessRuns(count: processes, profileFirst: profileFirst).measure()
            if baseline == nil { report = try measureSpreadBenchmarks(report) }
            ProcessFactors.annotate(
                &report, defaultThresholdPercent: comparison.comparator.thresholdPercent,
                deterministicHashing: EnvironmentCapture.deterministicHashing())
        } else {
            report = measure(selection)
        }
        // Rounds in which the machine moved within a process are a finding of their own.
        report.roundFactors = RoundFactorModel.factors(report)
        // The baseline as shown beside the report: with the time profiles the gate took of it.
        var shownBaseline = baseline?.report
        if let baseline {
            let decision = try baseline.gate.decide(baseline: baseline.report, current: report) { suspects in
                try measureAgain(suspects, baseline: baseline, current: report)
            }
            report.comparison = try measureUndecided(decision, baseline: baseline, current: report).comparison
            // The findings print it: one line on what a single process cannot tell.
            let caveats = baseline.gate.caveats(baseline: baseline.report, current: report)
            if !caveats.isEmpty { report.comparison?.caveats = caveats }
            shownBaseline = explainTime(base: baseline, report: &report)
            report.comparison = report.comparison.map { gate.explainCompiledCode($0, current: report) }
        }
        try ResultPresentation.publish(
            report, writer: writer, formats: formats, baseline: shownBaseline, gate: gate, history: history,
            store: historyStore)
        if !report.complete && InterruptFlag.isSet { throw ExitCode(130) }
        try RegressionGate.Status(report.comparison).exit()
    }
}
