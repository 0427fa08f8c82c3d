import Foundation
import PerfkitGzip
import PerfReport
import PerfkitPprof
import Testing

/// The pprof pair a wall-time regression leaves beside the report (sampled CPU ns per operation),
/// as the real pprof reads it.
extension CommandLineTests {
    static func timeProfile(drainChecksumStep: Double) -> PprofProfile {
        // run → popMin, run → drainChecksumStep; drainChecksumStep's own time is what grows.
        let profile = FunctionProfile(
            functions: [
                .init(name: "run", exclusive: 20, inclusive: 620 + drainChecksumStep),
                .init(name: "Heap.popMin", exclusive: 600, inclusive: 600),
                .init(name: "drainChecksumStep", exclusive: drainChecksumStep, inclusive: drainChecksumStep),
            ],
            edges: [
                .init(caller: 0, callee: 1, inclusive: 600),
                .init(caller: 0, callee: 2, inclusive: drainChecksumStep),
            ], omittedExclusive: 0, samples: 600)
        return PprofProfile.cpuTime(stacks: profile.callerStacks(), comment: "S/heap (test)")
    }

    /// `go tool pprof -top -diff_base base new` on the time pair puts the grown function first,
    /// its growth in nanoseconds as flat.
    @Test func goToolPprofDiffBaseShowsTheSampledGrownFunctionFirst() throws {
        guard Self.goExecutable != nil else {
            print("skipped: \(Self.goMissing)")
            return
        }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let base = directory.appendingPathComponent("S_heap.time.base.pb.gz")
        let new = directory.appendingPathComponent("S_heap.time.new.pb.gz")
        try Gzip.compress(Self.timeProfile(drainChecksumStep: 300).encoded()).write(to: base)
        try Gzip.compress(Self.timeProfile(drainChecksumStep: 700).encoded()).write(to: new)

        let single = try goToolPprof(["-top", "-unit=ns", base.path], in: directory)
        #expect(single.status == 0, "\(single.stderr)")
        #expect(single.stdout.contains("Type: cpu"), "\(single.stdout)")
        #expect(try Self.nanoseconds(single.stdout, naming: "Heap.popMin") == 600, "\(single.stdout)")

        let diff = try goToolPprof(["-top", "-unit=ns", "-diff_base", base.path, new.path], in: directory)
        #expect(diff.status == 0, "\(diff.stderr)")
        let rows = diff.stdout.split(separator: "\n").drop { !$0.contains("flat%") }.dropFirst()
        #expect(rows.first?.hasSuffix("drainChecksumStep") == true, "\(diff.stdout)")
        #expect(try Self.nanoseconds(diff.stdout, naming: "drainChecksumStep") == 400, "\(diff.stdout)")
    }

    /// The flat column of `name`'s row, printed in nanoseconds (`-unit=ns`: `400ns`).
    static func nanoseconds(_ top: String, naming name: String) throws -> Int {
        let row = try #require(top.split(separator: "\n").first { $0.hasSuffix(name) }, "no \(name) in:\n\(top)")
        let flat = try #require(row.split(separator: " ", omittingEmptySubsequences: true).first)
        return try #require(Int(flat.replacingOccurrences(of: "ns", with: "")), "\(row)")
    }
}
