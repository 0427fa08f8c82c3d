import Foundation
import PerfReport
import Testing

@testable import Harness

/// Per-function instructions from callgrind dumps, and which functions grew between two profiles.
@Suite struct FunctionProfileTests {
    /// A dump part in callgrind's format (valgrind 3.19, shortened): names compressed as `(id) name`
    /// the first time and `(id)` later, a recursion level `rec'2`, a call entered before collection
    /// started (`calls=0`), and `mid` named only in an earlier part.
    static let part = """
        # callgrind format
        version: 1
        creator: callgrind-3.19.0
        part: 2
        positions: line
        events: Ir
        summary: 9299

        ob=(5) /tmp/t
        fl=(139) ???
        fn=(536) main
        0 15
        cfn=(538)
        calls=1 0
        0 9284

        fn=(538)
        0 5
        cfn=(540) leaf
        calls=1 0
        0 6006
        0 6
        cfn=(540)
        calls=1 0
        0 3006
        0 3
        cfn=(542) rec
        calls=1 0
        0 253
        0 5

        fn=(540)
        0 9210

        fn=(542)
        0 9
        cfn=(540)
        calls=1 0
        0 66
        0 3
        cfn=(543) rec'2
        calls=1 0
        0 170
        0 5

        fn=(543)
        0 22
        cfn=(540)
        calls=2 0
        0 132
        0 6
        cfn=(543)
        calls=2 0
        0 91
        0 10

        fn=(502) (below main)
        cfn=(536)
        calls=0 0
        0 9299

        totals: 9299
        """

    static func names() -> CallgrindCallGraph.NameTable {
        var names = CallgrindCallGraph.NameTable()
        _ = try? CallgrindCallGraph(parsing: "events: Ir\nfn=(538) mid\n0 1\n", names: &names)
        return names
    }

    @Test func readsExclusiveAndInclusiveWithCompressedNamesAndRecursion() throws {
        var names = Self.names()
        let graph = try CallgrindCallGraph(parsing: Self.part, names: &names)
        #expect(graph.exclusive["main"] == 15)
        #expect(graph.exclusive["mid"] == Double(5 + 6 + 3 + 5), "the part names 538 only by id")
        #expect(graph.exclusive["leaf"] == 9210)
        #expect(graph.exclusive["rec"] == Double(9 + 3 + 5 + 22 + 6 + 10), "rec'2 is rec")
        #expect(graph.exclusive.values.reduce(0, +) == 9299, "every instruction is some function's own")
        let inclusive = graph.inclusive
        #expect(inclusive["main"] == 9299)
        #expect(inclusive["mid"] == 9284)
        #expect(inclusive["rec"] == 253, "recursion counted once")
        #expect((inclusive["(below main)"] ?? 0) == 0, "a call entered before collection is context, not work")
        #expect(graph.calls[.init(caller: "rec", callee: "leaf")] == Double(66 + 132))
        #expect(graph.calls[.init(caller: "rec", callee: "rec")] == nil)
    }

    @Test func profileIsPerOperationAndBounded() throws {
        var names = Self.names()
        var graph = try CallgrindCallGraph(parsing: Self.part, names: &names)
        graph.add(graph)
        let profile = graph.profile(iterations: 2)
        #expect(profile.functions.first?.name == "main", "largest inclusive first")
        #expect(profile.function(named: "leaf")?.exclusive == 9210)
        #expect(profile.function(named: "mid")?.inclusive == 9284)
        let total = profile.functions.reduce(profile.omittedExclusive) { $0 + $1.exclusive }
        #expect(total == 9299)
        let mid = try #require(profile.functions.firstIndex { $0.name == "mid" })
        let leaf = try #require(profile.functions.firstIndex { $0.name == "leaf" })
        #expect(profile.edges.contains { $0.caller == mid && $0.callee == leaf && $0.inclusive == 9012 })

        // Many functions: only the top ones are kept, the rest's own instructions summed.
        var wide = CallgrindCallGraph()
        for index in 0..<100 { wide.exclusive["f\(index)"] = Double(index + 1) }
        let bounded = wide.profile(iterations: 1)
        // The top by exclusive and by inclusive, and a caller for each of them that no kept one calls.
        #expect(
            bounded.functions.count <= 2 * (CallgrindCallGraph.keptByExclusive + CallgrindCallGraph.keptByInclusive))
        #expect(bounded.function(named: "f99") != nil)
        #expect(bounded.functions.reduce(bounded.omittedExclusive) { $0 + $1.exclusive } == 5050)
    }

    @Test func demanglesSwiftNames() {
        #expect(
            CallgrindCallGraph.demangle("$sSi1poiyS2i_SitFZ")
                == "static Swift.Int.+ infix(Swift.Int, Swift.Int) -> Swift.Int")
        #expect(CallgrindCallGraph.demangle("malloc") == "malloc")
    }

    /// A real dump: valgrind runs a small C program that switches collection on around a region
    /// and dumps it twice, as perfkit's runner does.
    @Test func readsARealDump() throws {
        guard let valgrind = ExternalTool.locateOnPath("valgrind"), let cc = ExternalTool.locateOnPath("cc"),
            FileManager.default.fileExists(atPath: "/usr/include/valgrind/callgrind.h")
        else {
            print("skipped: valgrind, its headers or a C compiler missing (scripts/setup.sh installs valgrind)")
            return
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("t.c")
        try """
        #include <valgrind/callgrind.h>
        __attribute__((noinline)) long leaf(long n) { long s = 0; for (long i = 0; i < n; i++) s += i * i; return s; }
        __attribute__((noinline)) long rec(long n) { return n <= 0 ? 0 : leaf(10) + rec(n - 1); }
        __attribute__((noinline)) long mid(long n) { return leaf(n) + leaf(n / 2) + rec(3); }
        int main(void) {
            volatile long t = 0;
            for (int r = 0; r < 2; r++) {
                CALLGRIND_ZERO_STATS; CALLGRIND_TOGGLE_COLLECT; t += mid(1000); CALLGRIND_TOGGLE_COLLECT;
                CALLGRIND_DUMP_STATS_AT("region");
            }
            return 0;
        }
        """.write(to: source, atomically: true, encoding: .utf8)
        let program = directory.appendingPathComponent("t")
        try Self.run(cc, ["-O1", "-o", program.path, source.path])
        let out = directory.appendingPathComponent("callgrind.out").path
        try Self.run(
            valgrind,
            [
                "--tool=callgrind", "--collect-atstart=no", "--cache-sim=no", "--callgrind-out-file=\(out)", "-q",
                program.path,
            ])
        var names = CallgrindCallGraph.NameTable()
        var graphs: [CallgrindCallGraph] = []
        for part in 1...2 {
            let text = try String(contentsOfFile: "\(out).\(part)", encoding: .utf8)
            let dump = try CallgrindDump(parsing: text)
            let graph = try CallgrindCallGraph(parsing: text, names: &names)
            #expect(graph.exclusive.values.reduce(0, +) == dump.instructions, "part \(part)")
            graphs.append(graph)
        }
        #expect(graphs[0] == graphs[1], "the same region counts the same")
        let profile = graphs[0].profile(iterations: 1)
        let top = try #require(profile.functions.max { $0.exclusive < $1.exclusive })
        #expect(top.name == "leaf")
        let mid = try #require(profile.function(named: "mid"))
        let rec = try #require(profile.function(named: "rec"))
        #expect(mid.inclusive > top.exclusive && rec.inclusive < mid.inclusive)
        #expect(profile.function(named: "main")?.inclusive ?? 0 >= mid.inclusive)
    }

    static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(executable) \(arguments)")
    }

    // MARK: - The differential

    static func profile(_ functions: [(String, Double, Double)], omitted: Double = 0) -> FunctionProfile {
        FunctionProfile(
            functions: functions.map { FunctionProfile.Function(name: $0.0, exclusive: $0.1, inclusive: $0.2) },
            edges: [], omittedExclusive: omitted)
    }

    @Test func theGrownFunctionComesFirst() {
        let base = Self.profile([("run", 10, 5000), ("Heap._bubbleDown", 3200, 3600), ("Heap.insert", 1400, 1800)])
        let new = Self.profile([("run", 10, 6300), ("Heap._bubbleDown", 4404, 4804), ("Heap.insert", 1500, 1900)])
        let differential = FunctionGrowth.differential(base: base, current: new)
        #expect(differential.grown.map(\.name) == ["Heap._bubbleDown", "Heap.insert"], "run did not grow")
        #expect(differential.grown.first?.exclusiveGrowth == 1204)
        #expect(differential.grown.first?.inclusiveGrowth == 1204)
        let (heading, lines) = ComparisonWording.functionDifferential(differential)
        #expect(heading.hasPrefix("grew most"))
        #expect(lines.first == "Heap._bubbleDown +1,204 instr/op (exclusive, +37.6 %; inclusive +1,204)")
    }

    @Test func aFlatProfileNamesNoCulprit() {
        let base = Self.profile([("a", 1000, 1000), ("b", 1000, 1000)], omitted: 500)
        let new = Self.profile([("a", 1002, 1002), ("b", 1001, 1001)], omitted: 700)
        let differential = FunctionGrowth.differential(base: base, current: new)
        #expect(differential.grown.isEmpty)
        let (heading, lines) = ComparisonWording.functionDifferential(differential)
        #expect(lines.isEmpty)
        #expect(heading.hasPrefix("no single function grew"), "\(heading)")
    }

    @Test func aFunctionNewInTheProfileSaysSo() {
        let base = Self.profile([("a", 1000, 1000)])
        let new = Self.profile([("a", 1000, 1300), ("swift_beginAccess", 300, 300)])
        let differential = FunctionGrowth.differential(base: base, current: new)
        #expect(differential.grown.map(\.name) == ["swift_beginAccess"])
        #expect(
            ComparisonWording.functionChange(differential.grown[0])
                == "swift_beginAccess +300 instr/op (exclusive, not among the base's top functions)")
    }

    @Test func theGateNamesWhereACountRegressionGrew() throws {
        var base = GateFixtures.result("S/g/heap", instructions: 5000)
        base.functionProfile = Self.profile([("Heap._bubbleDown", 3200, 3600), ("other", 1800, 1800)])
        var new = GateFixtures.result("S/g/heap", instructions: 6204)
        new.functionProfile = Self.profile([("Heap._bubbleDown", 4404, 4804), ("other", 1800, 1800)])
        var same = GateFixtures.result("S/g/same", instructions: 100)
        same.functionProfile = Self.profile([("x", 100, 100)])
        let gate = RegressionGate(basis: .counts([.instructions], remedies: Remedies()))
        let decision = gate.decide(
            baseline: GateFixtures.report([base, same]), current: GateFixtures.report([new, same]))
        let heap = try #require(decision.comparison.entries.first { $0.id == "S/g/heap" })
        #expect(heap.verdict == .regressed)
        #expect(heap.functionDifferential?.grown.first?.name == "Heap._bubbleDown")
        #expect(decision.comparison.entries.first { $0.id == "S/g/same" }?.functionDifferential == nil)

        let text = ComparisonText.render(decision.comparison)
        #expect(text.contains("Heap._bubbleDown +1,204 instr/op (exclusive, +37.6 %"), "\(text)")
        let markdown = GateSummary.markdown(decision.comparison, title: "t")
        #expect(markdown.contains("- `Heap._bubbleDown` +1,204 instr/op"), "\(markdown)")

        // Saved in the report and read back.
        var report = GateFixtures.report([new])
        report.comparison = decision.comparison
        let decoded = try ReportCoding.decoder().decode(Report.self, from: ReportCoding.encode(report))
        #expect(decoded.comparison == decision.comparison)
    }
}
