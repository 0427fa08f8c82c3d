import ArgumentParser
import Foundation
import Harness
import PerfReport

/// `perfkit baseline update`: refreshes the committed baseline that CI gates on.
struct BaselineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baseline",
        abstract: "Manage the committed baseline that CI gates on (instructions and allocations).",
        subcommands: [Update.self]
    )

    struct Update: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update",
            abstract: "Measure the CI configuration and write it as the baseline.",
            discussion: """
                Runs `run --instructions --allocations --quick` (the configuration to gate CI with) in a \
                separate process and writes its report atomically. Only machine-stable metrics \
                are gated on it. Refuses to run in CI (environment variable CI set): a baseline is \
                refreshed deliberately and committed, never silently. Compared with the baseline it \
                replaces, an instruction count regression gets its pprof pair in profiles/ beside it.
                """
        )

        @Option(help: "Where to write the baseline.")
        var output = "Reports/baseline.json"

        @Option(
            help: ArgumentHelp(
                "Only measure benchmarks whose id matches this regular expression (recorded in the baseline).",
                discussion: """
                    By default every benchmark the executable does not leave out (`PerfkitMain.run(…, \
                    baselineFilter:)`). perfkit leaves out the benchmarks that run on several threads: under \
                    valgrind threads run one at a time, so they take minutes and count the pool's waiting, \
                    which differs from run to run. CI should gate exactly the baseline's recorded filter.
                    """))
        var filter: String = RegisteredSuites.baselineFilter

        @Option(
            help: """
                Measuring runs: benchmarks whose instruction counts differ between them (threads, \
                address-dependent code) are marked and not gated.
                """)
        var runs = 3

        @Flag(help: "Do not count allocations (instructions only).")
        var noAllocations = false

        @Flag(help: "Update even though the CI environment variable is set.")
        var allowCI = false

        @Flag(
            help: """
                Passed to each measuring run (`run --profile`); under --instructions it takes no time \
                profile, callgrind's instruction profile being there: for a baseline with time profiles, \
                `run --processes N --output …` (kept by default up to 20 benchmarks; `--profile` beyond).
                """)
        var profile = false

        func validate() throws {
            guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        }

        func run() throws {
            if ProcessInfo.processInfo.environment["CI"].map({ !$0.isEmpty && $0 != "0" && $0 != "false" }) == true
                && !allowCI
            {
                throw PerfkitError(
                    .invalidInput,
                    "\(output): not updating the baseline in CI (CI is set); refresh it on purpose and commit it")
            }
            try selectedBenchmarks(filter)
            InterruptFlag.install()  // Ctrl-C stops the child run, then this command after its cleanup
            let previous = FileManager.default.fileExists(atPath: output) ? try? loadReport(output) : nil
            let work = URL(fileURLWithPath: NSTemporaryDirectory())
                .appendingPathComponent("perfkit-baseline-\(UUID().uuidString.prefix(8))")
            defer { try? FileManager.default.removeItem(at: work) }

            var reports: [Report] = []
            for index in 0..<runs {
                let directory = work.appendingPathComponent("run-\(index)")
                var arguments = ["run", "--instructions", "--quick", "--output", directory.path]
                if !noAllocations { arguments.append("--allocations") }
                if profile { arguments.append("--profile") }
                arguments += ["--filter", filter]
                printError("baseline: measuring run \(index + 1) of \(runs)\n")
                let status = try PerfkitProcess.run(arguments)
                guard status == 0 else {
                    throw PerfkitError(.runFailed, "\(output): the measuring run failed (exit \(status))")
                }
                let measured = try PerfkitProcess.onlyReport(in: directory)
                guard measured.complete else {
                    throw PerfkitError(
                        .runFailed, "\(output): the measuring run was incomplete: \(measured.incompleteReason ?? "?")")
                }
                reports.append(measured)
            }
            let report = InstructionDeterminism.marked(reports[0], repeats: Array(reports.dropFirst()))
            let uncounted = report.benchmarks.filter { $0.instructionsPerOperation == nil }.map(\.id)
            guard uncounted.isEmpty else {
                throw PerfkitError(
                    .runFailed, "\(output): no instruction counts for \(uncounted.joined(separator: ", "))")
            }
            try writeOutput(try ReportCoding.encode(report), to: URL(fileURLWithPath: output))
            print("baseline: \(output): \(report.benchmarks.count) benchmarks")
            // Counted instructions explain themselves (callgrind's profiles); wall time needs its own.
            print(
                "baseline: instruction counts only; for a wall-time baseline whose regressions say where they grew, run --processes 10 --output DIR (time profiles kept up to \(RunCommand.profiledBaselineLimit) benchmarks, --profile beyond)"
            )
            for benchmark in report.benchmarks {
                if let reason = InstructionDeterminism.unstableReason(benchmark) {
                    print("baseline: \(benchmark.id): \(reason)")
                }
            }
            if let previous {
                print(Self.changes(from: previous, to: report, output: URL(fileURLWithPath: output)), terminator: "")
            }
        }

        /// What changed from the `previous` baseline to `report` (written to `output`): the count
        /// gate's comparison, and the pprof pair of each regression, written beside `output`.
        static func changes(from previous: Report, to report: Report, output: URL) -> String {
            let gate = RegressionGate(basis: .counts(BaselineGate.stableMetrics, remedies: .commandLine))
            let changes = gate.decide(baseline: previous, current: report).comparison
            let lines =
                (changes.skipped ?? []).map { "not compared: \($0)" }
                + FunctionProfileFiles.write(changes, baseline: previous, current: report, beside: output)
            return ComparisonText.render(changes) + lines.map { $0 + "\n" }.joined()
        }
    }
}

/// Runs this perfkit executable as a child process, for commands made of other commands.
enum PerfkitProcess {
    static var executable: URL { URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath() }

    /// Set by a parent perfkit that runs this one from a copy (callgrind runs a copy without debug
    /// sections): the executable that copy was made from.
    static let originalExecutableKey = "PERFKIT_ORIGINAL_EXECUTABLE"

    /// The executable as built: this one, or the one this process is a copy of.
    static var original: URL {
        ProcessInfo.processInfo.environment[originalExecutableKey].map { URL(fileURLWithPath: $0) } ?? executable
    }

    /// Runs `perfkit <arguments>` (or another perfkit binary), its output going to our stderr so
    /// that our stdout stays the command's own result (or nowhere when `quiet`). Returns the exit status.
    static func run(
        _ arguments: [String], executable: URL = PerfkitProcess.executable, environment: [String: String]? = nil,
        currentDirectory: URL? = nil, quiet: Bool = false
    ) throws -> Int32 {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        process.standardOutput = quiet ? FileHandle.nullDevice : FileHandle.standardError
        do {
            try process.run()
        } catch {
            throw PerfkitError(.runFailed, "\(executable.path): cannot start: \(error)")
        }
        waitPassingOnInterrupt(process)
        // Let our caller's cleanup run before the command ends.
        if InterruptFlag.isSet { throw Interrupted() }
        return process.terminationReason == .uncaughtSignal
            ? 128 + process.terminationStatus : process.terminationStatus
    }

    /// Waits for a started child. Foundation gives the child a process group of its own, so a
    /// Ctrl-C at the terminal reaches only us (with `InterruptFlag` installed): pass it on, and
    /// let the child write what it finished.
    static func waitPassingOnInterrupt(_ process: Process) {
        var forwarded = false
        while process.isRunning {
            if InterruptFlag.isSet && !forwarded {
                process.interrupt()
                forwarded = true
            }
            usleep(100_000)
        }
    }

    /// Ctrl-C arrived while a child ran: the command stops (exit 130) after its cleanup.
    struct Interrupted: Error, CustomStringConvertible {
        var description: String { "interrupted" }
    }

    /// The one report a run wrote under `directory` (`<directory>/<timestamp>/report.json`).
    static func onlyReport(in directory: URL) throws -> Report {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let reports = entries.sorted().map {
            directory.appendingPathComponent($0).appendingPathComponent("report.json")
        }
        .filter { FileManager.default.fileExists(atPath: $0.path) }
        guard reports.count == 1 else {
            throw PerfkitError(.invalidInput, "\(directory.path): expected one report, found \(reports.count)")
        }
        return try loadReport(reports[0].path)
    }
}
