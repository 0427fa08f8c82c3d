import Foundation
import Testing

/// Times taken under different conditions are not compared: the gate refuses in one line and
/// names the metric to gate on instead, rather than pass on a comparison that cannot fail.
extension CommandLineTests {
    /// The committed baseline was timed under callgrind: a native run gated on its wall time
    /// would read "improved" everywhere. Refused before anything is measured or written.
    @Test func aNativeRunAgainstACallgrindTimedBaselineIsRefused() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let baseline = Self.packageRoot.appendingPathComponent("baseline.json").path
        let outcome = try perfkit([
            "run", "--quick", "--allow-debug-build", "--filter", "^DispatchBench/dispatch/final-class$",
            "--baseline", baseline, "--output", directory.path,
        ])
        #expect(outcome.status == 1, "\(outcome.stdout)")
        let lines = outcome.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(outcome.stderr)")
        #expect(outcome.stderr.hasPrefix("Error: \(baseline): cannot compare wall time: "))
        #expect(
            outcome.stderr.contains("the baseline's times were taken under valgrind (callgrind), this run's natively"))
        #expect(outcome.stderr.contains("--gate-metric instructions,allocations"))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "nothing measured or written")
    }

    @Test func compareRefusesReportsOfDifferentBuildConfigurations() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let release = directory.appendingPathComponent("release.json")
        let debug = directory.appendingPathComponent("debug.json")
        try writeReport([100, 101, 102, 100, 101], to: release)
        try writeReport([100, 101, 102, 100, 101], to: debug)
        let text = try String(contentsOf: debug, encoding: .utf8)
        try Data(text.replacingOccurrences(of: "\"release\"", with: "\"debug\"").utf8).write(to: debug)
        let outcome = try perfkit(["compare", release.path, debug.path])
        #expect(outcome.status == 1)
        #expect(
            outcome.stderr
                == "Error: \(release.path): cannot compare wall time: the baseline is a release build, this run a debug one; gate on exact counts instead (run --baseline \(release.path) --instructions --allocations --gate-metric instructions,allocations)\n"
        )
        // The same conditions compare as before.
        #expect(try perfkit(["compare", release.path, release.path]).status == 0)
    }
}
