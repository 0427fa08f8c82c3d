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
        #expect(outcome.stderr.contains("--gate-metric: 'wallTime' is not a machine-stable metric"))
    }

    @Test func gateOptionsNeedABaseline() throws {
        let outcome = try perfkit(["run", "--gate-metric", "instructions"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("--gate-metric and --summary need --baseline"))
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
}
