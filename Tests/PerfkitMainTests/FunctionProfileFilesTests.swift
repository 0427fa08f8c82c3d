import Foundation
import Harness
import PerfReport
import Testing

@testable import PerfkitMain

/// Commands whose report is a file (`baseline update`, `compare`) write the pprof pair beside it,
/// as `run` does beside its report.json, and say each path or why there is none.
@Suite struct FunctionProfileFilesTests {
    static func profile(bubbleDown: Double) -> FunctionProfile {
        FunctionProfile(
            functions: [
                .init(name: "Heap._bubbleDown", exclusive: bubbleDown, inclusive: bubbleDown + 400),
                .init(name: "other", exclusive: 1800, inclusive: 1800),
            ], edges: [], omittedExclusive: 0)
    }

    static func report(instructions: Double, nanoseconds: Double, bubbleDown: Double) -> Report {
        let values = (0..<12).map { nanoseconds * (1 + 0.01 * sin(Double($0))) }
        var result = BenchmarkResult(
            id: "S/g/heap", suite: "S", group: "g", name: "heap",
            samples: values.map { Sample(iterations: 1000, wallNanoseconds: $0 * 1000, cpuNanoseconds: $0 * 1000) },
            wallTime: SampleStatistics.summarize(values), instructionsPerOperation: instructions,
            instructionsSource: "callgrind")
        result.functionProfile = profile(bubbleDown: bubbleDown)
        return ReportFixtures.report([result])
    }

    private func temporaryDirectory() throws -> URL {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("perfkit-pair-\(UUID())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func baselineUpdateWritesThePairBesideTheBaseline() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let previous = Self.report(instructions: 5000, nanoseconds: 100, bubbleDown: 3200)
        let refreshed = Self.report(instructions: 6204, nanoseconds: 100, bubbleDown: 4404)
        let text = BaselineCommand.Update.changes(
            from: previous, to: refreshed, output: directory.appendingPathComponent("baseline.json"))
        #expect(text.contains("Heap._bubbleDown +1,204 instr/op"), "\(text)")
        let profiles = directory.appendingPathComponent("profiles")
        for side in ["base", "new"] {
            let path = profiles.appendingPathComponent("S_g_heap.\(side).pb.gz").path
            #expect(text.contains("profile: \(path)\n"), "\(text)")
            #expect(FileManager.default.fileExists(atPath: path))
        }
        // Nothing regressed: nothing written, nothing said.
        let unchanged = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: unchanged) }
        let same = BaselineCommand.Update.changes(
            from: previous, to: previous, output: unchanged.appendingPathComponent("baseline.json"))
        #expect(!same.contains("profile:") && !same.contains("pprof"), "\(same)")
        #expect(!FileManager.default.fileExists(atPath: unchanged.appendingPathComponent("profiles").path))
    }

    @Test func aTimeRegressionSaysWhyItHasNoPair() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let base = Self.report(instructions: 5000, nanoseconds: 100, bubbleDown: 3200)
        let slower = Self.report(instructions: 5000, nanoseconds: 130, bubbleDown: 3200)
        let decision = RegressionGate(basis: .time(.wallTime)).decide(baseline: base, current: slower)
        #expect(decision.status == .regressed)
        let lines = FunctionProfileFiles.write(
            decision.comparison, baseline: base, current: slower, beside: directory.appendingPathComponent("new.json"))
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("no pprof pair for S/g/heap: it regressed in wallTime") == true, "\(lines)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("profiles").path))
    }

    @Test func aPairThatCannotBeWrittenSaysWhy() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // `profiles` is a file: its directory cannot be made.
        try Data().write(to: directory.appendingPathComponent("profiles"))
        let previous = Self.report(instructions: 5000, nanoseconds: 100, bubbleDown: 3200)
        let refreshed = Self.report(instructions: 6204, nanoseconds: 100, bubbleDown: 4404)
        let text = BaselineCommand.Update.changes(
            from: previous, to: refreshed, output: directory.appendingPathComponent("baseline.json"))
        #expect(text.contains("no pprof pair written: "), "\(text)")
        #expect(!text.contains("profile: "), "\(text)")
    }
}
