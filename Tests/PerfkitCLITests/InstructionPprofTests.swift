import Foundation
import PerfkitGzip
import PerfReport
import PerfkitPprof
import Testing

/// The pprof pair a count regression leaves beside the report, as the real pprof reads it.
extension CommandLineTests {
    static func instructionProfile(bubbleDown: Double) -> PprofProfile {
        // run → insert → bubbleDown, run → popMin → bubbleDown; bubbleDown's own count is what grows.
        let profile = FunctionProfile(
            functions: [
                .init(name: "run", exclusive: 10, inclusive: 2310 + bubbleDown),
                .init(name: "Heap.insert", exclusive: 1400, inclusive: 1400 + bubbleDown / 2),
                .init(name: "Heap.popMin", exclusive: 900, inclusive: 900 + bubbleDown / 2),
                .init(name: "Heap._bubbleDown", exclusive: bubbleDown, inclusive: bubbleDown),
            ],
            edges: [
                .init(caller: 0, callee: 1, inclusive: 1400 + bubbleDown / 2),
                .init(caller: 0, callee: 2, inclusive: 900 + bubbleDown / 2),
                .init(caller: 1, callee: 3, inclusive: bubbleDown / 2),
                .init(caller: 2, callee: 3, inclusive: bubbleDown / 2),
            ], omittedExclusive: 0)
        return PprofProfile.instructions(stacks: profile.callerStacks(), comment: "S/heap (test)")
    }

    /// `go tool pprof -top -diff_base base new` puts the grown function first, with its growth as
    /// flat; every function's exclusive count is its flat value on each side.
    @Test func goToolPprofDiffBaseShowsTheGrownFunctionFirst() throws {
        guard Self.goExecutable != nil else {
            print("skipped: \(Self.goMissing)")
            return
        }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let base = directory.appendingPathComponent("S_heap.base.pb.gz")
        let new = directory.appendingPathComponent("S_heap.new.pb.gz")
        try Gzip.compress(Self.instructionProfile(bubbleDown: 3200).encoded()).write(to: base)
        try Gzip.compress(Self.instructionProfile(bubbleDown: 4404).encoded()).write(to: new)

        let single = try goToolPprof(["-top", base.path], in: directory)
        #expect(single.status == 0, "\(single.stderr)")
        #expect(single.stdout.contains("Type: instructions"), "\(single.stdout)")
        #expect(try pprofTopRow(single.stdout, naming: "Heap._bubbleDown").flat == 3200, "\(single.stdout)")
        #expect(try pprofTopRow(single.stdout, naming: "Heap.insert").flat == 1400, "\(single.stdout)")

        let diff = try goToolPprof(["-top", "-diff_base", base.path, new.path], in: directory)
        #expect(diff.status == 0, "\(diff.stderr)")
        let rows = diff.stdout.split(separator: "\n").drop { !$0.contains("flat%") }.dropFirst()
        #expect(rows.first?.hasSuffix("Heap._bubbleDown") == true, "\(diff.stdout)")
        #expect(try pprofTopRow(diff.stdout, naming: "Heap._bubbleDown").flat == 1204, "\(diff.stdout)")
    }

    /// `compare` gates on time, which finds no grown function: no pair, and stderr says why for a
    /// regression whose two reports carry profiles; stdout stays the summary.
    @Test func compareSaysWhyATimeRegressionHasNoPprofPair() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let profile = FunctionProfile(
            functions: [.init(name: "Heap._bubbleDown", exclusive: 3200, inclusive: 3200)], edges: [],
            omittedExclusive: 0)
        let base = directory.appendingPathComponent("base.json")
        let slower = directory.appendingPathComponent("slower.json")
        try writeReport(noisy(around: 100), profile: profile, to: base)
        try writeReport(noisy(around: 120), profile: profile, to: slower)
        let outcome = try perfkit(["compare", base.path, slower.path, "--format", "markdown"])
        #expect(outcome.status == 2)
        #expect(
            outcome.stderr.contains("no pprof pair for S/g/c: it regressed in wallTime, and only an instructions"),
            "\(outcome.stderr)")
        #expect(!outcome.stdout.contains("pprof"), "\(outcome.stdout)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("profiles").path))
    }
}
