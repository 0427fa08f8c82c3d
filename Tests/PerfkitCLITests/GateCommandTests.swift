import Foundation
import Testing

/// The gate commands' input checks, run on the real (debug) executable: wrong input is one line
/// on stderr, exit 1, and nothing written.
@Suite struct GateCommandTests {
    struct Outcome {
        var status: Int32
        var stderr: String
    }

    func perfkit(_ arguments: [String], environment: [String: String] = [:]) throws -> Outcome {
        let process = Process()
        process.executableURL = CommandLineTests.executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardOutput = FileHandle.nullDevice
        let err = Pipe()
        process.standardError = err
        try process.run()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, stderr: String(decoding: stderr, as: UTF8.self))
    }

    @Test func onlyMachineStableMetricsCanBeGatedOnABaseline() throws {
        let outcome = try perfkit(["run", "--baseline", "x.json", "--gate-metric", "instructions,wallTime"])
        #expect(outcome.status == 1)
        #expect(
            outcome.stderr.hasPrefix(
                "Error: The value 'instructions,wallTime' is invalid for '--gate-metric <gate-metric>'. "
                    + "Please provide one of 'instructions' and 'allocations'.\n"), "\(outcome.stderr)")
    }

    @Test func gateOptionsNeedABaseline() throws {
        let outcome = try perfkit(["run", "--gate-metric", "instructions"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("--gate-metric and --summary need --baseline"))
        let binary = try perfkit(["run", "--baseline-binary", "/bin/true"])
        #expect(binary.status == 1)
        #expect(binary.stderr.contains("--baseline-binary needs --baseline"), "\(binary.stderr)")
    }

    @Test func decideWithinIsSecondsForACommandThatMeasures() throws {
        for bad in ["-1", "nan", "inf"] {
            let outcome = try perfkit(["run", "--baseline", "x.json", "--decide-within=\(bad)"])
            #expect(outcome.status == 1)
            #expect(
                outcome.stderr.contains("--decide-within must be a number of seconds, 0 or more"), "\(outcome.stderr)")
        }
        let merge = try perfkit(["merge", "a.json", "--baseline", "x.json", "--decide-within", "5"])
        #expect(merge.status == 1)
        #expect(merge.stderr.contains("--decide-within measures more processes, and merge measures nothing"))
    }

    @Test func aBaselineBinaryThatIsNotThereIsNamed() throws {
        let outcome = try perfkit(["run", "--baseline", "x.json", "--baseline-binary", "/nonexistent/old"])
        #expect(outcome.status == 1)
        #expect(
            outcome.stderr.contains("--baseline-binary /nonexistent/old: no such readable file"), "\(outcome.stderr)")
    }

    @Test func theBaselineIsNeverUpdatedSilentlyInCI() throws {
        let output = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("perfkit-baseline-\(UUID())")
        let outcome = try perfkit(["baseline", "update", "--output", output.path], environment: ["CI": "true"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("not updating the baseline in CI"))
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func ciNeedsExactlyOneBaselineSide() throws {
        let neither = try perfkit(["ci"])
        #expect(neither.status == 1)
        #expect(neither.stderr.contains("give exactly one of --against REV and --baseline-binary PATH"))
        let both = try perfkit(["ci", "--against", "HEAD", "--baseline-binary", "/bin/true"])
        #expect(both.status == 1)
    }

    @Test func ciNamesARevisionItCannotCheckOut() throws {
        let summary = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("perfkit-ci-\(UUID()).md")
        let outcome = try perfkit(["ci", "--against", "no-such-revision-\(UUID())", "--summary", summary.path])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("cannot check out this revision"))
        #expect(!FileManager.default.fileExists(atPath: summary.path))
    }

    /// Ctrl-C during `perfkit ci` reaches the child run (in a process group of its own, so the
    /// terminal would not signal it), and ci then removes its work folder (and worktree) and exits 130.
    @Test func ctrlCDuringCIStopsTheChildAndCleansUp() throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("perfkit-ctrlc-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let marker = directory.appendingPathComponent("child-interrupted")
        let started = directory.appendingPathComponent("child-started")
        let child = directory.appendingPathComponent("slow-perfkit")
        try Data(
            """
            #!/bin/sh
            trap 'touch "\(marker.path)"; kill $! 2>/dev/null; exit 130' INT
            touch "\(started.path)"
            sleep 30 &
            wait
            """.utf8
        ).write(to: child)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: child.path)

        let process = Process()
        process.executableURL = CommandLineTests.executable
        process.arguments = [
            "ci", "--baseline-binary", child.path, "--current-binary", child.path, "--summary",
            directory.appendingPathComponent("summary.md").path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: started.path) && Date() < deadline { usleep(20_000) }
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()

        #expect(process.terminationStatus == 130)
        #expect(FileManager.default.fileExists(atPath: marker.path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
            .filter { $0.hasPrefix("perfkit-ci-\(process.processIdentifier)-") }
        #expect(leftovers.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("summary.md").path))
    }
}
