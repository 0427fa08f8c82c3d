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
        let regressionGate = gate.regressionGate(comparison)
        let baselineReport = try gate.loadBaseline(
            sharedWith: Set(ids), timing: .here(buildConfiguration: buildConfiguration, underValgrind: instructions),
            gate: regressionGate)
        let writer = try ReportWriter.prepare(outputRoot: destination.output, timestamp: Date())
        let historyStore = try history.open()

        InterruptFlag.install()
        var report: Report
        if processes > 1 {
            let profileFirst =
                profile == nil
                && Self.profilesByDefault(
                    benchmarks: ids.count, gating: baselineReport != nil, instructions: instructions)
            if profileFirst {
                printError(
                    "run: time profiles of the first process kept, for a later gate to say where a time regression grew (--no-profile skips them)\n"
                )
            }
            report = try ProcessRuns(count: processes, profileFirst: profileFirst).measure()
            ProcessLevels.annotate(
                &report, defaultThresholdPercent: comparison.comparator.thresholdPercent,
                deterministicHashing: ProcessInfo.processInfo.environment["SWIFT_DETERMINISTIC_HASHING"] != nil)
        } else {
            report = measure(selection)
        }
        // Rounds in which the machine moved within a process are a finding of their own.
        report.roundFactors = RoundLevels.factors(report)
        // The baseline as shown beside the report: with the time profiles the gate took of it.
        var shownBaseline = baselineReport
        if let baselineReport {
            report.comparison = try regressionGate.decide(baseline: baselineReport, current: report) { suspects in
                // Measured in processes: a time regression is measured once more, in one more process.
                guard processes > 1, !InterruptFlag.isSet else { return nil }
                printError(
                    "run: \(suspects.count) regressed; measuring \(suspects.count == 1 ? "it" : "them") again to confirm\n"
                )
                // With companions, whose levels give that process's machine factor (ProcessLevels):
                // the quickest of this run that the baseline has, so that the second look stays short.
                let inBaseline = Set(baselineReport.benchmarks.map(\.id))
                let quickestFirst = report.benchmarks.filter { inBaseline.contains($0.id) }.map { result in
                    (id: result.id, time: result.samples.reduce(0) { $0 + $1.wallNanoseconds })
                }.sorted { $0.time < $1.time }.map(\.id)
                let companions = ProcessLevels.companions(of: suspects, among: quickestFirst)
                let again = try ProcessRuns(
                    count: Self.confirmationProcesses,
                    filter: InterleavedComparison.filter(matchingExactly: suspects + companions)
                ).measure()
                return RegressionGate.Remeasured(baseline: baselineReport, current: again)
            }.comparison
            // The findings print it: one line on what a single process cannot tell.
            let caveats = regressionGate.caveats(baseline: baselineReport, current: report)
            if !caveats.isEmpty { report.comparison?.caveats = caveats }
            shownBaseline = explainTime(base: baselineReport, report: &report)
            report.comparison = report.comparison.map { gate.explainCompiledCode($0, current: report) }
        }
        try ResultPresentation.publish(
            report, writer: writer, formats: formats, baseline: shownBaseline, gate: gate, history: history,
            store: historyStore)
        if !report.complete && InterruptFlag.isSet { throw ExitCode(130) }
        try RegressionGate.Status(report.comparison).exit()
    }

    /// Puts a sampled time differential on each time regression (wall, or CPU where the gate judged
    /// by it): both binaries profiled now with `--baseline-binary`, else the baseline's stored time
    /// profiles against this build's. Returns the baseline with the profiles it was compared by.
    private func explainTime(base: Report, report: inout Report) -> Report {
        let regressed = (report.comparison?.entries ?? []).filter {
            $0.verdict == .regressed && ($0.metric == .wallTime || $0.metric == .cpuTime)
        }.map(\.id)
        guard !regressed.isEmpty, !InterruptFlag.isSet else { return base }
        let stored = regressed.filter { id in base.benchmarks.contains { $0.id == id && $0.timeProfile != nil } }
        guard gate.baselineBinary != nil || !stored.isEmpty else {
            let notes = report.comparison.flatMap(\.notes) ?? []
            report.comparison?.notes = notes + [ComparisonWording.noTimeProfiles]
            return base
        }
        var baseline = base
        do {
            let folder = try WorkFolder(prefix: "perfkit-profiles")
            defer { folder.remove() }
            let ids = gate.baselineBinary == nil ? stored : regressed
            printError("run: profiling \(ids.count) regression(s) by sampled time\n")
            // This run's own profiles (`--profile`) when it has them all; else taken now.
            let profiledHere = ids.allSatisfy { id in
                report.benchmarks.contains { $0.id == id && $0.timeProfile != nil }
            }
            let new =
                profiledHere
                ? report
                : try TimeProfiles.take(
                    ids, executable: PerfkitProcess.original, directory: folder.url.appendingPathComponent("current"))
            let old =
                try gate.baselineBinary.map {
                    try TimeProfiles.take(
                        ids, executable: URL(fileURLWithPath: $0), directory: folder.url.appendingPathComponent("base"))
                } ?? base
            TimeProfiles.attach(ids, base: old, new: new, baseline: &baseline, current: &report)
        } catch {
            let notes = report.comparison.flatMap(\.notes) ?? []
            report.comparison?.notes = notes + [ComparisonWording.timeProfilesFailed("\(error)")]
        }
        return baseline
    }

    /// A baseline measured in processes keeps time profiles unless told not to, when it has at most
    /// this many benchmarks: each costs a 0.5-2 s pass in the first process, 10-40 s at 20.
    static let profiledBaselineLimit = 20

    /// Whether `run --processes N` without `--profile`/`--no-profile` profiles its first process: a
    /// baseline (not a gated run, which profiles its regressions itself), timed, small enough.
    static func profilesByDefault(benchmarks: Int, gating: Bool, instructions: Bool) -> Bool {
        !gating && !instructions && benchmarks <= profiledBaselineLimit
    }

    /// Processes of the second look at a regression: one is one more draw, as three would be (a
    /// candidate's processes count as one draw), and two cost busy runs their time limit
    /// (docs/regression-gate.md, "A quiet hour").
    static let confirmationProcesses = 1

    /// Measures the selection in this process, with a progress line on a terminal.
    func measure(_ selection: BenchmarkSelection) -> Report {
        let profile = quick ? "quick" : thorough ? "thorough" : "default"
        var configuration = quick ? RunConfiguration.quick : thorough ? .thorough : .standard
        if let samples {
            configuration.samples = samples
            configuration.maximumFreshVisits = nil
        }
        if let timeBudget { configuration.timeBudgetSeconds = timeBudget }
        if let rounds { configuration.rounds = rounds }
        configuration.minimumSamples = min(configuration.minimumSamples, configuration.samples)
        if allocations { configuration.allocationCounter = InterposedAllocationCounter() }
        if self.profile == true && !instructions { configuration.operationProfiler = SampledOperationProfiler() }
        configuration.remedies = .commandLine

        let settings = RunSettings(
            filter: filter, quick: quick, samples: configuration.samples,
            timeBudgetSeconds: configuration.timeBudgetSeconds, warmupSeconds: configuration.warmupSeconds,
            minSampleNanoseconds: configuration.minimumSampleNanoseconds, allocations: allocations,
            instructions: instructions, rounds: configuration.rounds, profile: profile)
        let session = BenchmarkSession(
            selection: selection, configuration: configuration, settings: settings,
            buildConfiguration: buildConfiguration)
        let progress = ProgressLine()
        let report = session.run(shouldStop: { InterruptFlag.isSet }, progress: progress.update)
        progress.finish()
        return report
    }
}

/// What `run` and `merge` do once a report is made: write it, print it, file it in the history.
enum ResultPresentation {
    /// Writes `report` in `formats`, prints its findings, table and comparison (the summary file
    /// too), files it in `store` and writes the history page when asked for.
    static func publish(
        _ report: Report, writer: ReportWriter, formats: [OutputFormat], baseline: Report?, gate: GateOptions,
        history: RunHistoryOptions, store: (any ResultsStore)?
    ) throws {
        let written = try writer.write(
            report, formats: formats, baseline: baseline, linkingHistory: history.writesPage(formats))
        // The findings lead, as on the HTML page; the table of every benchmark follows.
        Swift.print(FindingsText.text(report), terminator: "")
        Swift.print(ResultTable.text(report), terminator: "")
        for metric in report.metrics where !metric.available {
            Swift.print("note: \(metric.metric.rawValue) not measured: \(metric.reason ?? "unavailable")")
        }
        if let reason = report.incompleteReason { Swift.print("warning: the report is incomplete: \(reason)") }
        if let result = report.comparison {
            let summary = GateSummary.markdown(
                result, title: "compared with \(gate.baseline ?? "baseline")",
                notes: ComparisonWording.roundNotes(Findings(report)))
            Swift.print(summary)
            try gate.writeSummary(summary)
        }
        for url in written { Swift.print("report: \(url.path)") }
        for url in try FunctionProfileFiles.write(report, baseline: baseline, into: writer.directory) {
            Swift.print("profile: \(url.path)")
        }
        try history.file(report, writtenAt: written.first?.path ?? writer.directory.path, in: store)
        if let page = try history.writePage(into: writer.directory, formats: formats, store: store) {
            Swift.print("report: \(page.path)")
        }
    }
}

/// The build configuration of this perfkit binary; a debug build's numbers are not meaningful.
public let buildConfiguration: String = {
    #if DEBUG
        return "debug"
    #else
        return "release"
    #endif
}()

/// The registered benchmarks `filter` selects; a one-line error when it is not a regular
/// expression or selects nothing (checked before any process is started or anything is built).
@discardableResult
func selectedBenchmarks(_ filter: String?) throws -> BenchmarkSelection {
    do {
        return try BenchmarkSelection(filter: filter, suites: RegisteredSuites.all)
    } catch let error as BenchmarkSelection.InvalidFilter {
        throw PerfkitError(.invalidInput, error.commandLineDescription, cause: error)
    }
}

/// Loads a report given on the command line, turning load problems into one-line errors.
func loadReport(_ path: String) throws -> Report {
    do {
        return try ReportCoding.load(from: URL(fileURLWithPath: path))
    } catch let error as ReportCoding.LoadError {
        throw PerfkitError(error)
    }
}

/// "benchmark i of n, elapsed, ETA" on stderr, redrawn in place, only when stderr is a terminal.
final class ProgressLine {
    private let enabled = isatty(STDERR_FILENO) == 1

    func update(_ progress: BenchmarkSession.Progress) {
        guard enabled, progress.index < progress.total else { return }
        var line = "[\(progress.index + 1)/\(progress.total)] \(progress.id)"
        if progress.rounds > 1 { line += "  round \(progress.round)/\(progress.rounds)" }
        line += "  elapsed \(Int(progress.elapsedSeconds))s"
        if progress.index > 0 {
            let eta = progress.elapsedSeconds / Double(progress.index) * Double(progress.total - progress.index)
            line += "  ETA \(Int(eta.rounded()))s"
        }
        printError("\r\u{1B}[K" + line)
    }

    func finish() {
        if enabled { printError("\r\u{1B}[K") }
    }
}
