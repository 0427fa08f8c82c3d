import Foundation
import PerfReport
import Testing
import ProbeRecords

/// `perfkit stalls`: the stalls' call trees as folded stacks, a speedscope file or an HTML page.
extension CommandLineTests {
    /// Three stalls of a real `perfkit watch-demo` run (busy loop, lock wait, sleep), made on
    /// Debian 12 x86_64 with Swift 6.3.1 by
    /// `perfkit watch-demo --threshold-ms 60 --stall-ms 250 --format json --output /tmp/wd`
    /// (its `stalls.jsonl`, copied). Its module paths and build IDs are of that build: `--lines`
    /// finds nothing in it, which the live recording below covers.
    static var watchDemoFixture: URL {
        packageRoot.appendingPathComponent("Tests/PerfkitCLITests/Fixtures/watch-demo-stalls.jsonl")
    }

    static let app = "/srv/app/.build/debug/App"

    static func frame(_ symbol: String, file: String? = nil, line: Int? = nil) -> StackFrame {
        StackFrame(
            address: 0x1000 + UInt64(symbol.utf8.count), symbol: symbol, module: app,
            moduleOffset: 0x40, file: file, line: line)
    }

    static func node(_ symbol: String, _ count: Int, _ children: [CallTreeNode] = [], file: String? = nil)
        -> CallTreeNode
    {
        CallTreeNode(frame: frame(symbol, file: file, line: file == nil ? nil : 12), count: count, children: children)
    }

    /// 20 samples: 14 in `App.checksum` (3 of them in the vDSO under it), 2 in `App.Handler.handle`
    /// itself, 3 in a C function whose name holds a `;` and a line break, 1 in `App.Server.run`.
    static var busyStall: StallRecord {
        let tree = CallTreeNode(
            frame: nil, count: 20,
            children: [
                node(
                    "main", 20,
                    [
                        node(
                            "App.Server.run() -> ()", 20,
                            [
                                node(
                                    "App.Handler.handle() -> ()", 16,
                                    [
                                        node(
                                            "App.checksum(_: Swift.Array<Swift.UInt8>) -> Swift.UInt64", 14,
                                            [node("__vdso_clock_gettime", 3)],
                                            file: "/srv/app/Sources/App/Checksum.swift")
                                    ]),
                                node("weird;name\nwith breaks", 3),
                            ])
                    ])
            ])
        return StallRecord(
            watchdog: "main", threadID: 42, start: Date(timeIntervalSince1970: 1_800_000_000),
            durationNanoseconds: 300e6, ongoing: false, thresholdNanoseconds: 100e6, threadCPUNanoseconds: 290e6,
            classification: .cpuBound, threadStates: Array(repeating: "R", count: 20), sampleCount: 20,
            unansweredSamples: 0, callTree: tree, topStack: [frame("__vdso_clock_gettime")],
            groupKey: "App.checksum(_: Swift.Array<Swift.UInt8>) -> Swift.UInt64 <- App.Handler.handle() -> ()")
    }

    /// A starvation of the cooperative pool: 5 samples of two pool threads, merged in one tree.
    static var poolStall: StallRecord {
        let tree = CallTreeNode(
            frame: nil, count: 5, children: [node("main", 5, [node("App.worker() async -> ()", 5)])])
        let thread = ThreadStack(
            threadID: 7, name: "pool", threadStates: ["R", "R"], sampleCount: 2, unansweredSamples: 0,
            topStack: [frame("App.worker() async -> ()")])
        return StallRecord(
            watchdog: "pool", threadID: 7, start: Date(timeIntervalSince1970: 1_800_000_001),
            durationNanoseconds: 150e6,
            ongoing: false, thresholdNanoseconds: 100e6, threadCPUNanoseconds: nil, classification: .starved,
            threadStates: Array(repeating: "R", count: 5), sampleCount: 5, unansweredSamples: 0, callTree: tree,
            topStack: [frame("App.worker() async -> ()")], groupKey: "App.worker() async -> ()",
            threads: [thread, thread])
    }

    func writeStalls(_ records: [StallRecord], in directory: URL, name: String = "stalls.jsonl") throws -> URL {
        let encoder = ReportCoding.encoder()
        encoder.outputFormatting = [.sortedKeys]
        let url = directory.appendingPathComponent(name)
        try Data(records.map { String(decoding: try encoder.encode($0), as: UTF8.self) + "\n" }.joined().utf8)
            .write(to: url)
        return url
    }

    /// Folded lines read back as a flame-graph tool reads them: `frames count`, split at the last space.
    func parseFolded(_ text: String) throws -> [(frames: [String], count: Int)] {
        #expect(text.hasSuffix("\n"))
        return try text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { line in
            let space = try #require(line.lastIndex(of: " "), "no count in \(line)")
            let count = try #require(Int(line[line.index(after: space)...]), "no count in \(line)")
            return (line[..<space].split(separator: ";", omittingEmptySubsequences: false).map(String.init), count)
        }
    }

    @Test func foldedStacksOfAHandMadeStallParseBack() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try writeStalls([Self.busyStall, Self.poolStall], in: directory)

        let outcome = try perfkit(["stalls", input.path, "--format", "folded", "--stall", "1"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.isEmpty)
        let lines = try parseFolded(outcome.stdout)
        #expect(lines.count == 5, "one line per distinct stack: \(outcome.stdout)")
        #expect(lines.reduce(0) { $0 + $1.count } == 20, "every sample once")
        #expect(lines.allSatisfy { $0.frames.first == "main" && $0.count > 0 })
        let checksum = "App.checksum(_: Swift.Array<Swift.UInt8>) -> Swift.UInt64 (Checksum.swift:12)"
        let inChecksum = lines.filter { $0.frames.contains(checksum) }.reduce(0) { $0 + $1.count }
        #expect(inChecksum == 14, "the dominant frame holds most samples")
        #expect(
            lines.contains {
                $0.frames == [
                    "main", "App.Server.run() -> ()", "App.Handler.handle() -> ()", checksum, "__vdso_clock_gettime",
                ]
                    && $0.count == 3
            })
        #expect(lines.contains { $0.frames == ["main", "App.Server.run() -> ()"] && $0.count == 1 }, "self samples")
        // A name cannot break the format.
        #expect(lines.contains { $0.frames.last == "weird,name with breaks" && $0.count == 3 }, "\(outcome.stdout)")

        // By default every stall is merged into one graph; the pool starvation's tree holds both threads.
        let all = try parseFolded(try perfkit(["stalls", input.path, "--format", "folded"]).stdout)
        #expect(all.reduce(0) { $0 + $1.count } == 25)
        #expect(all.contains { $0.frames == ["main", "App.worker() async -> ()"] && $0.count == 5 })
    }

    @Test func foldedSplitStartsEachStackWithItsSet() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try writeStalls([Self.busyStall, Self.poolStall], in: directory)

        let byWatchdog = try parseFolded(
            try perfkit(["stalls", input.path, "--format", "folded", "--split", "watchdog"]).stdout)
        #expect(Set(byWatchdog.map { $0.frames[0] }) == ["[watchdog main]", "[watchdog pool]"])
        #expect(byWatchdog.filter { $0.frames[0] == "[watchdog pool]" }.reduce(0) { $0 + $1.count } == 5)

        let byStall = try parseFolded(
            try perfkit(["stalls", input.path, "--format", "folded", "--split", "stall"]).stdout)
        #expect(
            Set(byStall.map { $0.frames[0] }) == [
                "[stall 1: main, 300 ms, cpu-bound]", "[stall 2: pool, 150 ms, starved, 2 pool threads]",
            ])

        let byGroup = try parseFolded(
            try perfkit(["stalls", input.path, "--format", "folded", "--split", "group"]).stdout)
        #expect(byGroup.contains { $0.frames[0] == "[group App.worker() async -> ()]" && $0.count == 5 })

        // Picking by group key: only the pool starvation.
        let picked = try parseFolded(
            try perfkit(["stalls", input.path, "--format", "folded", "--group", "worker"]).stdout)
        #expect(picked.map(\.count) == [5])

        let list = try perfkit(["stalls", input.path, "--list"])
        #expect(list.status == 0)
        #expect(list.stdout.split(separator: "\n").count == 2)
        #expect(list.stdout.hasPrefix("1\tmain\t300 ms\tcpu-bound\t20 samples\tApp.checksum"))
    }

    /// The parts of speedscope's file format (file-format-spec.ts) that perfkit writes.
    struct SpeedscopeFile: Decodable {
        struct Frame: Decodable, Hashable {
            var name: String
            var file: String?
            var line: Int?
        }
        struct Shared: Decodable { var frames: [Frame] }
        struct Profile: Decodable {
            var type: String
            var name: String
            var unit: String
            var startValue: Int
            var endValue: Int
            var samples: [[Int]]
            var weights: [Int]
        }
        var schema: String
        var shared: Shared
        var profiles: [Profile]
        var name: String?
        var exporter: String?

        enum CodingKeys: String, CodingKey {
            case schema = "$schema"
            case shared, profiles, name, exporter
        }

        /// Checks what speedscope's importer relies on: indices in range, one weight per sample.
        func checkWellFormed() {
            #expect(schema == "https://www.speedscope.app/file-format-schema.json")
            #expect(Set(shared.frames).count == shared.frames.count, "frames are listed once")
            for profile in profiles {
                #expect(profile.type == "sampled" && profile.unit == "none" && profile.startValue == 0)
                #expect(profile.samples.count == profile.weights.count)
                #expect(profile.samples.allSatisfy { $0.allSatisfy { shared.frames.indices.contains($0) } })
                #expect(profile.weights.reduce(0, +) == profile.endValue)
                #expect(profile.weights.allSatisfy { $0 > 0 })
            }
        }
    }

    @Test func speedscopeFileDecodesWithAProfilePerGroup() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try writeStalls([Self.busyStall, Self.poolStall], in: directory)

        let outcome = try perfkit(["stalls", input.path, "--format", "speedscope"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let file = try JSONDecoder().decode(SpeedscopeFile.self, from: Data(outcome.stdout.utf8))
        file.checkWellFormed()
        #expect(file.exporter?.hasPrefix("perfkit@") == true)
        #expect(file.name == "stalls.jsonl: 2 stalls")
        #expect(file.profiles.map(\.endValue) == [20, 5])
        #expect(file.profiles[0].name.hasPrefix("group App.checksum"))
        #expect(file.profiles[0].name.hasSuffix(" — 1 stall, 300 ms"))
        // Frames are shared: `main` is in both profiles and listed once.
        #expect(file.shared.frames.filter { $0.name == "main" }.count == 1)
        let checksum = try #require(file.shared.frames.firstIndex { $0.name.hasPrefix("App.checksum") })
        #expect(file.shared.frames[checksum].file == "/srv/app/Sources/App/Checksum.swift")
        #expect(file.shared.frames[checksum].line == 12)
        let throughChecksum = zip(file.profiles[0].samples, file.profiles[0].weights).filter { $0.0.contains(checksum) }
        #expect(throughChecksum.reduce(0) { $0 + $1.1 } == 14)
        // Root first.
        #expect(file.profiles[0].samples.allSatisfy { file.shared.frames[$0[0]].name == "main" })

        // One profile of everything, written atomically to a file.
        let output = directory.appendingPathComponent("profile.speedscope.json")
        let merged = try perfkit(["stalls", input.path, "--format", "speedscope", "--split", "none", "-o", output.path])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stdout == "written: \(output.path) (2 stalls)\n")
        let mergedFile = try JSONDecoder().decode(SpeedscopeFile.self, from: Data(contentsOf: output))
        mergedFile.checkWellFormed()
        #expect(mergedFile.profiles.map(\.endValue) == [25])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == [
                "profile.speedscope.json", "stalls.jsonl",
            ])
    }

    @Test func htmlPageHasTheIcicleChart() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try writeStalls([Self.busyStall, Self.poolStall], in: directory)
        let output = directory.appendingPathComponent("stalls.html")

        let outcome = try perfkit(["stalls", input.path, "--format", "html", "--output", output.path, "--stall", "1"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let html = try String(contentsOf: output, encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("Watchdog stalls (1)"))
        #expect(html.contains("aria-label=\"Sampled stacks of App.checksum"), "the icicle chart")
        #expect(html.contains("<g class=\"frame f"))
        #expect(html.contains("<pre class=\"tree\">"), "the call tree as text")
        #expect(!html.contains("App.worker"), "only the picked stall")
        // JSON lines carry no environment: the page does not pretend to know it.
        #expect(html.contains("unknown (Probe JSON lines record no environment)"))

        let terminal = try perfkit(["stalls", input.path, "--format", "html"])
        #expect(terminal.status == 1)
        #expect(terminal.stderr.contains("--format html needs --output PATH"))
    }

    @Test(arguments: [
        ("no-tree", "--format folded", "no call trees in the stall (no stack was sampled)"),
        (
            "stalls", "--format folded --group nothing-like-this",
            "no stall's group key contains \"nothing-like-this\" (2 stalls in 2 groups; --list shows them)"
        ),
        ("stalls", "--format speedscope --stall 3", "no stall 3; the file holds 2 stalls"),
        ("stalls", "--format folded --watchdog other", "no stall of watchdog \"other\" (watchdogs: main, pool)"),
        ("benchmarks-only", "--format html --output OUT", "no stalls"),
    ])
    func badInputIsOneLineNamingTheFile(input kind: String, arguments: String, problem: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input: URL
        switch kind {
        case "no-tree":
            var stall = Self.busyStall
            stall.callTree = nil
            input = try writeStalls([stall], in: directory)
        case "benchmarks-only":
            input = directory.appendingPathComponent("report.json")
            try writeReport([1, 2, 3], to: input)
        default:
            input = try writeStalls([Self.busyStall, Self.poolStall], in: directory)
        }
        let output = directory.appendingPathComponent("out")
        let outcome = try perfkit(
            ["stalls", input.path]
                + arguments.split(separator: " ").map { $0 == "OUT" ? output.path : String($0) })
        #expect(outcome.status == 1)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr == "Error: \(input.path): \(problem)\n")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func anUnknownFormatIsAUsageError() throws {
        let outcome = try perfkit(["stalls", Self.watchDemoFixture.path, "--format", "svg"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("'svg' is invalid for '--format <format>'"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("'folded', 'speedscope', 'html' or 'pprof'"))
        let missing = try perfkit(["stalls", "/nonexistent/stalls.jsonl", "--format", "folded"])
        #expect(missing.stderr == "Error: /nonexistent/stalls.jsonl: cannot read: no such file\n")
    }

    /// The committed watch-demo recording: in-app group keys, and the busy loop's samples under
    /// `demoBusyLoop` whichever system function they were caught in.
    @Test func theWatchDemoFixtureInEveryFormat() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = Self.watchDemoFixture
        let records = try readJSONLines(fixture)
        #expect(records.count == 3)

        let busy = try parseFolded(try perfkit(["stalls", fixture.path, "--format", "folded", "--stall", "1"]).stdout)
        #expect(busy.reduce(0) { $0 + $1.count } == records[0].callTree?.count)
        let loop = "perfkit.demoBusyLoop(milliseconds: Swift.Int) -> ()"
        #expect(busy.allSatisfy { $0.frames.contains(loop) })
        #expect(Set(busy.map { $0.frames.last! }).count > 1, "caught in several system leaves: \(busy)")

        let speedscope = try perfkit(["stalls", fixture.path, "--format", "speedscope"])
        let file = try JSONDecoder().decode(SpeedscopeFile.self, from: Data(speedscope.stdout.utf8))
        file.checkWellFormed()
        #expect(file.profiles.count == 3)
        #expect(file.profiles.map(\.endValue) == records.map { $0.callTree!.count })

        let page = directory.appendingPathComponent("page.html")
        #expect(try perfkit(["stalls", fixture.path, "--format", "html", "-o", page.path]).status == 0)
        let html = try String(contentsOf: page, encoding: .utf8)
        // The group key starts with the app's own function (escaped in the page).
        #expect(
            html.contains(
                "aria-label=\"Sampled stacks of perfkit.demoBusyLoop(milliseconds: Swift.Int) -&gt; () &lt;- "))
    }

    /// `--lines` on a fresh recording, from the report and from the JSON lines.
    @Test func linesFillFileAndLineInFoldedAndSpeedscope() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let recorded = try recordDemoStalls(in: directory)

        let folded = try perfkit(["stalls", recorded.report.path, "--format", "folded", "--lines", "--stall", "1"])
        #expect(folded.status == 0, "\(folded.stderr)")
        let lines = try parseFolded(folded.stdout)
        #expect(
            lines.contains {
                $0.frames.contains {
                    $0.hasPrefix("ProbeCommands.demoBusyLoop(milliseconds: Swift.Int) -> () (WatchDemoCommand.swift:")
                }
            },
            "\(folded.stdout)")

        let speedscope = try perfkit(["stalls", recorded.jsonLines.path, "--format", "speedscope", "--lines"])
        #expect(speedscope.status == 0, "\(speedscope.stderr)")
        let file = try JSONDecoder().decode(SpeedscopeFile.self, from: Data(speedscope.stdout.utf8))
        file.checkWellFormed()
        let lockWait = try #require(file.shared.frames.first { $0.name.contains("demoLockWait") })
        #expect(
            lockWait.file?.hasSuffix("Sources/Probe/ProbeCommands/WatchDemoCommand.swift") == true, "\(lockWait)")
        #expect((lockWait.line ?? 0) > 0)

        // Without --lines no file or line appears (watch-demo records none).
        let plain = try perfkit(["stalls", recorded.jsonLines.path, "--format", "speedscope"])
        let plainFile = try JSONDecoder().decode(SpeedscopeFile.self, from: Data(plain.stdout.utf8))
        #expect(plainFile.shared.frames.allSatisfy { $0.file == nil && $0.line == nil })

        // The report's own page: its environment, only its stalls.
        let page = directory.appendingPathComponent("report-stalls.html")
        let html = try perfkit(["stalls", recorded.report.path, "--format", "html", "--lines", "-o", page.path])
        #expect(html.status == 0, "\(html.stderr)")
        let text = try String(contentsOf: page, encoding: .utf8)
        #expect(text.contains("WatchDemoCommand.swift:"), "lines in the call-tree text")
        #expect(!text.contains("Probe JSON lines record no environment"))
    }
}

/// A stalls file whose writer was killed mid-record: its last line is cut short.
extension CommandLineTests {
    /// `records` as JSON lines, then the first half of one more record with no newline.
    func writeTornStalls(_ records: [StallRecord], in directory: URL) throws -> URL {
        let url = try writeStalls(records + [records[0]], in: directory)
        var text = try String(contentsOf: url, encoding: .utf8)
        let lastLine = text.dropLast().lastIndex(of: "\n").map { text.index(after: $0) } ?? text.startIndex
        text = String(text[..<text.index(lastLine, offsetBy: (text.distance(from: lastLine, to: text.endIndex)) / 2)])
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test func aTornLastLineIsLeftOutWithOneWarning() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try writeTornStalls([Self.busyStall, Self.poolStall], in: directory)
        let outcome = try perfkit(["stalls", input.path, "--list"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.split(separator: "\n").count == 2, "\(outcome.stdout)")
        #expect(
            outcome.stderr
                == "warning: \(input.path): line 3: incomplete last record (cut short as the writer stopped?); read the 2 complete records before it\n"
        )
        let folded = try perfkit(["stalls", input.path, "--format", "folded"])
        #expect(folded.status == 0, "\(folded.stderr)")
        #expect(try parseFolded(folded.stdout).reduce(0) { $0 + $1.count } == 25, "both stalls' samples, 20 and 5")
    }

    @Test(arguments: [
        ("a broken line in the middle", "{\"watchdog\": \"ma\n", "line 2: not valid JSON"),
        ("a broken last line ending with its newline", "{\"watchdog\": \"ma\n", "line 3: not valid JSON"),
    ])
    func aBrokenLineThatIsNoTornWriteIsAnError(case name: String, broken: String, problem: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try writeStalls([Self.busyStall, Self.poolStall], in: directory)
        var lines = try String(contentsOf: input, encoding: .utf8).split(separator: "\n").map { $0 + "\n" }
        lines.insert(Substring(broken), at: name.contains("middle") ? 1 : 2)
        try Data(lines.joined().utf8).write(to: input)
        let outcome = try perfkit(["stalls", input.path, "--list"])
        #expect(outcome.status == 1)
        #expect(outcome.stdout.isEmpty)
        #expect(
            outcome.stderr
                == "Error: \(input.path): \(problem); expected a perfkit report or Probe JSON lines\n")
    }
}
