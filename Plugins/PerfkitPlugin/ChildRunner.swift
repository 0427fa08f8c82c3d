import Foundation

/// Runs the built benchmark executables one after another, in the package directory, and merges
/// their outputs.
struct ChildRunner {
    var built: [URL]
    var directory: URL
    var interruption: Interruption

    /// `run`: each executable measures into the work folder; the first merges the reports into
    /// the output and, with a baseline, gates on the merged report.
    func run(_ arguments: [String], work: URL) throws {
        var options = PluginArguments(arguments)
        // The merged report is the run: it alone is gated and filed in the history.
        let merging = try options.take([
            "baseline", "gate-metric", "summary", "threshold", "alpha", "format", "output", "history", "machine",
            "branch",
        ])
        let measuring = options.remaining
        var reports: [String] = []
        for (index, executable) in try matching(arguments).enumerated() where !interruption.isSet {
            let output = work.appendingPathComponent("reports-\(index)")
            print("perfkit: running \(executable.lastPathComponent)")
            // Its table is printed once, merged, at the end; problems still reach stderr.
            let status = try launch(executable, ["run"] + measuring + ["--output", output.path], quiet: true)
            guard status == 0 || interruption.isSet else { throw ChildFailure(executable: executable, status: status) }
            reports += try Self.reportFiles(under: output)
        }
        if interruption.isSet {
            // What finished, marked incomplete, as `run` itself does on Ctrl-C.
            if !reports.isEmpty {
                _ = try launch(built[0], ["merge"] + reports + merging, interruptible: false)
            }
            exit(130)
        }
        try check(built[0], ["merge"] + reports + merging)
    }

    /// `baseline update`: one baseline per executable, merged into the one file.
    func updateBaseline(_ arguments: [String], work: URL) throws {
        var options = PluginArguments(arguments)
        let destination = try options.values(of: "output").last ?? "Reports/baseline.json"
        let rest = options.remaining
        var parts: [String] = []
        for (index, executable) in try matching(arguments).enumerated() {
            let part = work.appendingPathComponent("baseline-\(index).json").path
            try check(executable, ["baseline"] + rest + ["--output", part])
            parts.append(part)
        }
        try check(built[0], ["merge"] + parts + ["--into", destination])
    }

    /// `ci --against REV`: each executable against its own build at REV; one summary.
    func ci(_ arguments: [String], work: URL) throws {
        var options = PluginArguments(arguments)
        let path = try options.values(of: "summary").last ?? "Reports/ci-summary.md"
        let rest = options.remaining
        // Relative paths are the package directory's, as the children see them.
        let summary = path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path)
        var texts: [String] = []
        var regressed = false
        var inconclusive = false
        for (index, executable) in try matching(arguments).enumerated() {
            let part = work.appendingPathComponent("ci-summary-\(index).md")
            let status = try launch(
                executable, ["ci"] + rest + ["--product", executable.lastPathComponent, "--summary", part.path])
            if interruption.isSet { exit(130) }
            guard status == 0 || status == 2 || status == 3 else {
                throw ChildFailure(executable: executable, status: status)
            }
            regressed = regressed || status == 2
            inconclusive = inconclusive || status == 3
            texts.append((try? String(contentsOf: part, encoding: .utf8)) ?? "")
        }
        try FileManager.default.createDirectory(
            at: summary.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Atomic: a half-written summary never reaches the pull request.
        try Data(texts.joined(separator: "\n").utf8).write(to: summary, options: .atomic)
        print("summary: \(summary.path)")
        if regressed { exit(2) }
        if inconclusive { exit(3) }
    }

    /// `list`: every executable's benchmarks (that the filter selects).
    func list(_ arguments: [String]) throws {
        for executable in try matching(arguments) { try check(executable, ["list"] + arguments) }
    }

    /// The executables with a benchmark that `--filter` selects (all without a filter): a filter
    /// may name the benchmarks of one executable only, but one that selects nothing anywhere is
    /// an error, as in a single executable.
    func matching(_ arguments: [String]) throws -> [URL] {
        var options = PluginArguments(arguments)
        let filter = try options.take(["filter"])
        guard !filter.isEmpty else { return built }
        let selecting = try built.filter { try launch($0, ["list"] + filter, quiet: true, silent: true) == 0 }
        guard !selecting.isEmpty else {
            let names = built.map(\.lastPathComponent).joined(separator: ", ")
            throw PluginFailure(
                "--filter \(filter.last ?? ""): selects no benchmark in \(names) (or is not a regular expression)")
        }
        return selecting
    }

    /// Runs `executable arguments`; exit 2 (a regression) or 3 (inconclusive: the machine was
    /// busy) ends the plugin with the same status, any other failure with an error naming the
    /// executable.
    func check(_ executable: URL, _ arguments: [String], quiet: Bool = false) throws {
        let status = try launch(executable, arguments, quiet: quiet)
        if interruption.isSet { exit(130) }
        if status == 2 || status == 3 { exit(status) }
        guard status == 0 else { throw ChildFailure(executable: executable, status: status) }
    }

    /// Runs one executable to its end (`quiet`: without its stdout, `silent`: without its stderr),
    /// interrupted by ``Interruption`` unless it must finish (a merge of what finished).
    func launch(
        _ executable: URL, _ arguments: [String], quiet: Bool = false, silent: Bool = false,
        interruptible: Bool = true
    ) throws -> Int32 {
        let process = Process()
        if quiet { process.standardOutput = FileHandle.nullDevice }
        if silent { process.standardError = FileHandle.nullDevice }
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        try process.run()
        if interruptible { interruption.running(process.processIdentifier) }
        process.waitUntilExit()
        if interruptible { interruption.running(nil) }
        return process.terminationReason == .uncaughtSignal
            ? 128 + process.terminationStatus : process.terminationStatus
    }

    /// The `report.json` files a run wrote under `directory` (one timestamped folder).
    static func reportFiles(under directory: URL) throws -> [String] {
        let folders = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        return folders.map { directory.appendingPathComponent($0).appendingPathComponent("report.json").path }
            .filter { FileManager.default.fileExists(atPath: $0) }
    }
}

struct ChildFailure: Error, CustomStringConvertible {
    var executable: URL
    var status: Int32
    var description: String {
        status == 130
            ? "\(executable.lastPathComponent): interrupted"
            : "\(executable.lastPathComponent) exited with status \(status)"
    }
}
