import ArgumentParser
import Foundation
import Harness
import PerfReport

/// `perfkit ci --against REV`: the time gate of a pull request, two builds on the same machine in
/// the same job.
struct CICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ci",
        abstract: "Compare this build's times with another revision's, interleaved, and gate on regressions.",
        discussion: """
            Builds REV in a separate git worktree with its own build folder, then runs both \
            builds in alternating separate processes (A B, B A, …), merges each side's samples and \
            compares them (Mann-Whitney U, Holm correction, effect beyond the threshold). Benchmarks \
            whose verdict is "regressed" are measured again, interleaved, and a regression stands only \
            if the re-run confirms it. Writes a markdown summary; exit 2 on a regression, 3 when \
            nothing regressed but a wall time (--metric wallTime) could not be judged because the \
            machine was busy.
            """
    )

    @Option(help: "The revision to compare against (a commit, branch or tag of this repository).")
    var against: String?

    @Option(help: "Use this benchmark executable as the baseline side instead of building --against.")
    var baselineBinary: String?

    @Option(help: "The benchmark executable of the current side (default: this one).")
    var currentBinary: String?

    @Option(
        help: ArgumentHelp(
            "The product to build at REV (default: this executable's name).",
            discussion: "For a benchmark executable whose product name differs from its file name."))
    var product: String?

    @Option(help: "Build folder for REV (default: a temporary one; reuse one to build faster).")
    var scratchPath: String?

    @Option(help: "Only compare benchmarks whose id matches this regular expression.")
    var filter: String?

    @Option(help: "Interleaved rounds per side.")
    var rounds = 3

    @Option(help: "Interleaved rounds per side when re-measuring suspected regressions (0: no re-run).")
    var rerunRounds = 3

    @OptionGroup var round: RoundOptions

    @Option(
        help: ArgumentHelp(
            "The time compared: cpuTime or wallTime.",
            discussion: """
                Process CPU time by default: on a shared machine a benchmark that is descheduled for a \
                while gets slower in wall time but not in CPU time, and neighbours come and go between rounds.
                """))
    var metric: TimeMetric = .cpuTime

    enum TimeMetric: String, ExpressibleByArgument, CaseIterable {
        case cpuTime, wallTime
        var metric: Metric { self == .cpuTime ? .cpuTime : .wallTime }
    }

    @OptionGroup var comparison: ComparisonOptions

    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "Profile each confirmed regression on both sides: where it grew and why.",
            discussion: """
                Each regressed benchmark is run once more on each side under callgrind (needs valgrind): \
                the functions whose instructions grew most, and what changed in their machine code; and \
                once more with its CPU time sampled (0.5-2 s a side): the functions whose share grew.
                """))
    var explain = true

    @Option(help: "Write the markdown summary (for the pull request) here, atomically.")
    var summary = "Reports/ci-summary.md"

    @OptionGroup var destination: ReportDirectoryOption

    func validate() throws {
        guard (against == nil) != (baselineBinary == nil) else {
            throw ValidationError("give exactly one of --against REV and --baseline-binary PATH")
        }
        guard rounds >= 1, rerunRounds >= 0 else { throw ValidationError("--rounds must be ≥ 1, --rerun-rounds ≥ 0") }
        try comparison.validate()
    }

    func run() throws {
        let start = Date()
        try selectedBenchmarks(filter)
        // Ctrl-C stops the child run and then this command, so the worktree and work folder go too.
        InterruptFlag.install()
        let folder = try WorkFolder(prefix: "perfkit-ci")
        defer { folder.remove() }
        let work = folder.url

        let baselineExecutable: URL
        if let baselineBinary {
            baselineExecutable = URL(fileURLWithPath: baselineBinary)
        } else {
            let build = try RevisionBuild.make(
                revision: against!, product: product ?? PerfkitProcess.executable.lastPathComponent, work: work,
                scratchPath: scratchPath)
            folder.removing(with: build.remove)
            baselineExecutable = build.executable
        }
        let sides = Sides(
            baseline: baselineExecutable,
            current: currentBinary.map { URL(fileURLWithPath: $0) } ?? PerfkitProcess.executable)

        // First pass: every selected benchmark, interleaved; the gate has its suspects measured again.
        let first = try sides.interleaved(filter: filter, rounds: rounds, options: round, work: work, label: "pass1")
        let decision = try comparison.gate(on: metric.metric).decide(baseline: first.baseline, current: first.current) {
            suspects in
            guard rerunRounds > 0 else { return nil }
            printError(
                "ci: re-measuring \(suspects.count) suspected regression(s): \(suspects.joined(separator: ", "))\n")
            let again = try sides.interleaved(
                filter: InterleavedComparison.filter(matchingExactly: suspects), rounds: rerunRounds, options: round,
                work: work, label: "rerun")
            return RegressionGate.Remeasured(baseline: again.baseline, current: again.current)
        }

        var notes = [
            "\(rounds) interleaved rounds per side, \(round.samples) samples per benchmark per round "
                + "(\(first.current.benchmarks.first?.samples.count ?? 0) per side merged)"
        ]
        if decision.remeasured {
            notes.append(
                "\(decision.suspects.count) first-pass regression(s) re-measured in \(rerunRounds) more rounds; "
                    + "\(decision.comparison.count(.regressed)) confirmed")
        } else {
            notes.append("no first-pass regression, so nothing was re-measured")
        }
        var current = first.current
        var baseline = first.baseline
        current.comparison = decision.comparison
        let regressed = decision.comparison.entries.filter { $0.verdict == .regressed }.map(\.id)
        if explain, !regressed.isEmpty, !InterruptFlag.isSet {
            let profiling = Date()
            do {
                try sides.explain(regressed, baseline: &baseline, current: &current, work: work)
                notes.append(
                    String(
                        format: "%d regression(s) profiled on both sides under callgrind in %.0f s", regressed.count,
                        Date().timeIntervalSince(profiling)))
            } catch {
                notes.append("regressions not profiled: \(error)")
            }
            // Sampled time beside the instructions: a time regression need not move a count.
            let sampling = Date()
            do {
                try sides.explainTime(regressed, baseline: &baseline, current: &current, work: work)
                notes.append(
                    String(
                        format: "%d regression(s) profiled on both sides by sampled time in %.0f s", regressed.count,
                        Date().timeIntervalSince(sampling)))
            } catch {
                notes.append(ComparisonWording.timeProfilesFailed("\(error)"))
            }
        }
        notes.append(String(format: "took %.0f s", Date().timeIntervalSince(start)))

        let title = "perfkit ci: this build vs \(against ?? baselineExecutable.path) (\(metric.rawValue))"
        let text = GateSummary.markdown(current.comparison ?? decision.comparison, title: title, notes: notes)
        print(text, terminator: "")
        try writeOutputs(text: text, baseline: baseline, current: current)
        try decision.status.exit()
    }

    private func writeOutputs(text: String, baseline: Report, current: Report) throws {
        try writeOutput(Data(text.utf8), to: URL(fileURLWithPath: summary))
        let writer = try ReportWriter.prepare(outputRoot: destination.output, timestamp: Date())
        var written = try writer.write(current, formats: [.json], baseline: baseline)
        written += try FunctionProfileFiles.write(current, baseline: baseline, into: writer.directory)
        try writeOutput(
            try ReportCoding.encode(baseline), to: writer.directory.appendingPathComponent("baseline-report.json"))
        print("summary: \(summary)\nreport: \(written.map(\.path).joined(separator: ", "))")
    }

    /// The two benchmark executables and how one round of each is run.
    struct Sides {
        var baseline: URL
        var current: URL

        /// Profiles `regressed` on both sides (one `run --instructions` of them on each) into the
        /// reports' results, and puts on `current`'s comparison the functions that grew most and what
        /// changed in their machine code.
        func explain(_ regressed: [String], baseline: inout Report, current: inout Report, work: URL) throws {
            var profiles: [URL: Report] = [:]
            for executable in [self.baseline, self.current] {
                let side = executable == self.baseline ? "baseline" : "current"
                let directory = work.appendingPathComponent("profile-\(side)")
                printError("ci: profiling \(regressed.count) regression(s) under callgrind: \(executable.path)\n")
                let status = try PerfkitProcess.run(
                    [
                        "run", "--instructions", "--filter", InterleavedComparison.filter(matchingExactly: regressed),
                        "--output", directory.path,
                    ], executable: executable, quiet: true)
                guard status == 0 else {
                    throw PerfkitError(.runFailed, "\(executable.path): `run --instructions` exited with \(status)")
                }
                profiles[executable] = try PerfkitProcess.onlyReport(in: directory)
            }
            let base = profiles[self.baseline]!
            let new = profiles[self.current]!
            guard var comparison = current.comparison else { return }
            for index in comparison.entries.indices where regressed.contains(comparison.entries[index].id) {
                let id = comparison.entries[index].id
                guard let old = base.benchmarks.first(where: { $0.id == id })?.functionProfile,
                    let now = new.benchmarks.first(where: { $0.id == id })?.functionProfile
                else { continue }
                comparison.entries[index].functionDifferential = FunctionGrowth.differential(base: old, current: now)
                // Beside the times, for the pprof pair and the report's flame graph.
                for index in baseline.benchmarks.indices where baseline.benchmarks[index].id == id {
                    baseline.benchmarks[index].functionProfile = old
                }
                for index in current.benchmarks.indices where current.benchmarks[index].id == id {
                    current.benchmarks[index].functionProfile = now
                }
            }
            current.comparison = CompiledCodeExplanation.attach(
                to: comparison, current: new, baseBinary: self.baseline.path, newBinary: self.current.path,
                kinds: [.instructions])
        }

        /// Profiles `regressed` on both sides by sampled time (one `run --profile` of them on each)
        /// and puts on `current`'s comparison the functions whose share of the time grew, with what
        /// changed in their machine code.
        func explainTime(_ regressed: [String], baseline: inout Report, current: inout Report, work: URL) throws {
            printError("ci: profiling \(regressed.count) regression(s) by sampled time on both sides\n")
            let base = try TimeProfiles.take(
                regressed, executable: self.baseline, directory: work.appendingPathComponent("time-baseline"))
            let new = try TimeProfiles.take(
                regressed, executable: self.current, directory: work.appendingPathComponent("time-current"))
            TimeProfiles.attach(regressed, base: base, new: new, baseline: &baseline, current: &current)
            current.comparison = current.comparison.map {
                CompiledCodeExplanation.attach(
                    to: $0, current: current, baseBinary: self.baseline.path, newBinary: self.current.path,
                    kinds: [.sampledTime])
            }
        }

        func interleaved(
            filter: String?, rounds: Int, options: RoundOptions, work: URL, label: String
        ) throws -> (baseline: Report, current: Report) {
            var reports: [InterleavedComparison.Side: [Report]] = [:]
            for round in 0..<rounds {
                let order = InterleavedComparison.order(round: round)
                for side in [order.first, order.second] {
                    let directory = work.appendingPathComponent("\(label)-\(side.rawValue)-\(round)")
                    let executable = side == .baseline ? baseline : current
                    printError("ci: \(label) round \(round + 1)/\(rounds): \(side.rawValue)\n")
                    let status = try PerfkitProcess.run(
                        options.runArguments(filter: filter, output: directory), executable: executable, quiet: true)
                    guard status == 0 else {
                        throw PerfkitError(.runFailed, "\(executable.path): `run` failed with exit status \(status)")
                    }
                    reports[side, default: []].append(try PerfkitProcess.onlyReport(in: directory))
                }
            }
            guard let old = InterleavedComparison.merge(reports[.baseline] ?? []),
                let new = InterleavedComparison.merge(reports[.current] ?? [])
            else { throw PerfkitError(.runFailed, "\(work.path): no reports were written") }
            return (old, new)
        }
    }
}
