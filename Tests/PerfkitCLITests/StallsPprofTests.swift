import Foundation
import ProbeRecords
import PerfkitGzip
import PerfkitPprof
import Testing

/// The protobuf wire format of the pprof export, against the examples of the encoding guide
/// (https://protobuf.dev/programming-guides/encoding/), and its gzip.
@Suite struct PprofWriterTests {
    func written(_ body: (inout ProtobufWriter) -> Void) -> [UInt8] {
        var writer = ProtobufWriter()
        body(&writer)
        return writer.bytes
    }

    @Test func varintsAreSevenBitsAByteLeastSignificantFirst() {
        let cases: [(value: UInt64, bytes: [UInt8])] = [
            (0, [0x00]), (1, [0x01]), (127, [0x7F]), (128, [0x80, 0x01]), (150, [0x96, 0x01]),
            (300, [0xAC, 0x02]), (UInt64.max, Array(repeating: 0xFF, count: 9) + [0x01]),
        ]
        for (value, bytes) in cases {
            #expect(written { $0.varint(value) } == bytes, "\(value)")
        }
        // int64, not sint64: -1 is ten bytes of two's complement.
        #expect(written { $0.int64(1, -1) } == [0x08] + Array(repeating: 0xFF, count: 9) + [0x01])
    }

    @Test func fieldsAreTaggedAndLengthDelimitedAsTheGuideShows() {
        #expect(written { $0.uint64(1, 150) } == [0x08, 0x96, 0x01])
        #expect(written { $0.string(2, "testing") } == [0x12, 0x07, 0x74, 0x65, 0x73, 0x74, 0x69, 0x6E, 0x67])
        #expect(written { $0.message(3) { $0.uint64(1, 150) } } == [0x1A, 0x03, 0x08, 0x96, 0x01])
        #expect(
            written { $0.packed(4, [3, 270, 86_942] as [UInt64]) } == [0x22, 0x06, 0x03, 0x8E, 0x02, 0x9E, 0xA7, 0x05])
        #expect(written { $0.packed(4, [-1] as [Int64]) }.prefix(2) == [0x22, 0x0A])
        // A length past 127 takes a two-byte varint.
        #expect(written { $0.bytes(1, [UInt8](repeating: 7, count: 300)) }.prefix(4) == [0x0A, 0xAC, 0x02, 0x07])
        // proto3: scalars at their default are left out; a repeated string's "" is an element.
        #expect(written { $0.uint64(5, 0) } == [])
        #expect(written { $0.bool(7, false) } == [])
        #expect(written { $0.bool(7, true) } == [0x38, 0x01])
        #expect(written { $0.packed(1, [] as [UInt64]) } == [])
        #expect(written { $0.string(6, "") } == [0x32, 0x00])
    }

    @Test func profileStringTableStartsWithTheEmptyString() {
        var profile = PprofProfile(sampleTypes: [.init(type: "samples", unit: "count")])
        profile.functions = [.init(id: 1, name: "f", systemName: "f")]
        profile.locations = [.init(id: 1, mappingID: 0, address: 0, lines: [.init(functionID: 1)])]
        profile.samples = [.init(locationIDs: [1], values: [2])]
        let bytes = [UInt8](profile.encoded())
        // sample_type {type: 1, unit: 2}, sample {location_id [1], value [2]}, location, function
        // {id 1, name 3, system_name 3}, then the strings "", "samples", "count", "f".
        let strings: [UInt8] = [0x32, 0x00, 0x32, 0x07] + Array("samples".utf8) + [0x32, 0x05] + Array("count".utf8)
        #expect(
            bytes.starts(with: [0x0A, 0x04, 0x08, 0x01, 0x10, 0x02, 0x12, 0x06, 0x0A, 0x01, 0x01, 0x12, 0x01, 0x02]))
        #expect(bytes.firstRange(of: strings + [0x32, 0x01, 0x66]) != nil, "\(bytes)")
        #expect(bytes.firstRange(of: [0x2A, 0x06, 0x08, 0x01, 0x10, 0x03, 0x18, 0x03]) != nil, "the function")
    }

    @Test func gzipIsReadBackByGzip() throws {
        let text = String(repeating: "perfkit stalls --format pprof\n", count: 100)
        let compressed = try Gzip.compress(Data(text.utf8))
        #expect(compressed.starts(with: [0x1F, 0x8B, 0x08]), "gzip magic and deflate")
        #expect(compressed.count < text.utf8.count / 10)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "gzip -dc"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(compressed)
        try input.fileHandleForWriting.close()
        let back = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(String(decoding: back, as: UTF8.self) == text)
        #expect(try Gzip.compress(Data()).starts(with: [0x1F, 0x8B]), "an empty input is still a gzip member")
    }
}

/// `perfkit stalls --format pprof`, read back by the real pprof (`go tool pprof`).
extension CommandLineTests {
    /// `go` on PATH; the tests that need it fail (not skip) without it, saying how to install it.
    static var goExecutable: URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("go") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    static let goMissing: Comment =
        "go is not installed: run `apt-get install -y golang-go` (scripts/setup.sh, run by `make test`, installs it)"

    /// `go tool pprof ARGUMENTS` with a home and temporary directory of its own under `directory`,
    /// the local toolchain only (never a download). The build cache is shared across runs: Go 1.25+
    /// builds pprof at its first use and keeps it there (minutes under emulation, every time with a
    /// fresh cache).
    func goToolPprof(_ arguments: [String], in directory: URL) throws -> Outcome {
        let go = try #require(Self.goExecutable, Self.goMissing)
        let home = directory.appendingPathComponent("go-home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        environment["GOCACHE"] = FileManager.default.temporaryDirectory.appendingPathComponent("perfkit-go-cache").path
        environment["GOPATH"] = home.appendingPathComponent("path").path
        environment["GOTOOLCHAIN"] = "local"
        environment["GOFLAGS"] = "-mod=mod"
        environment["PPROF_TMPDIR"] = home.path
        return try run(go, ["tool", "pprof"] + arguments, environment: environment)
    }

    /// `-top`'s row of the function whose name contains `name`: its flat and cum values.
    func pprofTopRow(_ top: String, naming name: String) throws -> (flat: Int, cum: Int) {
        let row = try #require(top.split(separator: "\n").first { $0.contains(name) }, "no \(name) in:\n\(top)")
        let columns = row.split(separator: " ", omittingEmptySubsequences: true)
        let flat = try #require(Int(columns[0]), "\(row)")
        let cum = try #require(Int(columns[3]), "\(row)")
        return (flat, cum)
    }

    /// `-raw`'s samples: each line `  <samples> <wall>: <location ids>`, summed per column.
    func pprofRawTotals(_ raw: String) throws -> (samples: Int, wall: Int) {
        let lines = raw.split(separator: "\n").map(String.init)
        let header = try #require(lines.firstIndex(of: "Samples:"), "no samples in:\n\(raw)")
        #expect(lines[header + 1] == "samples/count[dflt] wall/nanoseconds", "samples is the default")
        var totals = (samples: 0, wall: 0)
        for line in lines[(header + 2)...] {
            if line.hasPrefix("Locations") { break }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let values = line[..<colon].split(separator: " ").compactMap { Int($0) }
            guard values.count == 2 else { continue }
            totals.samples += values[0]
            totals.wall += values[1]
        }
        return totals
    }

    @Test func pprofNeedsAnOutputFileAndWritesGzip() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = Self.watchDemoFixture

        let terminal = try perfkit(["stalls", fixture.path, "--format", "pprof"])
        #expect(terminal.status == 1)
        #expect(terminal.stderr.contains("--format pprof needs --output PATH"), "\(terminal.stderr)")
        let split = try perfkit(["stalls", fixture.path, "--format", "pprof", "--split", "stall", "-o", "x.pb.gz"])
        #expect(split.status == 1)
        #expect(split.stderr.contains("pprof labels each sample with its stall_id"), "\(split.stderr)")

        let output = directory.appendingPathComponent("stalls.pb.gz")
        let outcome = try perfkit(["stalls", fixture.path, "--format", "pprof", "-o", output.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout == "written: \(output.path) (3 stalls)\n")
        #expect(try Data(contentsOf: output).starts(with: [0x1F, 0x8B]), "the gzip magic")
        // Written atomically: nothing else is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["stalls.pb.gz"])
    }

    /// The watch-demo recording as the real pprof reads it: `demoBusyLoop` with every sample of
    /// the busy stall, and two files merged into one with twice the samples.
    @Test func goToolPprofReadsTheWatchDemoProfile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = Self.watchDemoFixture
        let records = try readJSONLines(fixture)
        let busySamples = try #require(records[0].callTree).count
        #expect(busySamples == records[0].sampleCount, "every sample of the busy stall was answered")

        let busy = directory.appendingPathComponent("busy.pb.gz")
        #expect(
            try perfkit(["stalls", fixture.path, "--format", "pprof", "--stall", "1", "-o", busy.path]).status == 0)
        let top = try goToolPprof(["-top", busy.path], in: directory)
        #expect(top.status == 0, "\(top.stderr)")
        #expect(top.stdout.contains("Type: samples"), "samples is the default sample type: \(top.stdout)")
        let loop = try pprofTopRow(top.stdout, naming: "demoBusyLoop")
        #expect(loop.cum == busySamples, "\(top.stdout)")

        // wall = samples × one interval; the stall's only, so it is the profile's period.
        let raw = try goToolPprof(["-raw", busy.path], in: directory)
        #expect(raw.status == 0, "\(raw.stderr)")
        let totals = try pprofRawTotals(raw.stdout)
        #expect(totals.samples == busySamples)
        let periodLine = try #require(raw.stdout.split(separator: "\n").first { $0.hasPrefix("Period: ") })
        let period = try #require(Int(periodLine.dropFirst("Period: ".count)))
        #expect(totals.wall == busySamples * period, "\(raw.stdout)")
        #expect(raw.stdout.contains("PeriodType: wall nanoseconds"))
        #expect(raw.stdout.contains("stall_id:[1]"), "\(raw.stdout)")
        #expect(raw.stdout.contains("watchdog:[main]") && raw.stdout.contains("class:[cpu-bound]"))
        #expect(raw.stdout.contains("thread:[\(records[0].threadID)]"))
        // Frames keep their module and build ID.
        let perfkitFrame = try #require(records[0].topStack.first { $0.symbol?.contains("demoBusyLoop") == true })
        let module = try #require(perfkitFrame.module)
        let buildID = try #require(perfkitFrame.buildID)
        #expect(raw.stdout.contains("\(module) \(buildID)"), "the mapping: \(raw.stdout)")

        // Two whole files merged by pprof: twice the samples of each.
        let all = directory.appendingPathComponent("all.pb.gz")
        #expect(try perfkit(["stalls", fixture.path, "--format", "pprof", "-o", all.path]).status == 0)
        let merged = directory.appendingPathComponent("merged.pb.gz")
        let merge = try goToolPprof(["-proto", "-output", merged.path, all.path, busy.path], in: directory)
        #expect(merge.status == 0, "\(merge.stderr)")
        let mergedTotals = try pprofRawTotals(try goToolPprof(["-raw", merged.path], in: directory).stdout)
        let everySample = records.reduce(0) { $0 + ($1.callTree?.count ?? 0) }
        #expect(mergedTotals.samples == everySample + busySamples)
        let twice = directory.appendingPathComponent("twice.pb.gz")
        #expect(try goToolPprof(["-proto", "-output", twice.path, busy.path, busy.path], in: directory).status == 0)
        #expect(
            try pprofRawTotals(try goToolPprof(["-raw", twice.path], in: directory).stdout).samples == 2 * busySamples)
        let twiceTop = try goToolPprof(["-top", twice.path], in: directory)
        #expect(try pprofTopRow(twiceTop.stdout, naming: "demoBusyLoop").cum == 2 * busySamples, "\(twiceTop.stdout)")
    }

    /// Hand-made stalls: labels pick a stall (`-tagfocus`), file and line reach pprof, and a pool
    /// starvation's samples carry its pool thread.
    /// The same on stalls recorded now by this build's `perfkit watch-demo` (the fixture is an
    /// older build's): pprof names the busy loop with every sample of its stall.
    @Test func goToolPprofReadsAFreshWatchDemoRun() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let recorded = try recordDemoStalls(in: directory)
        let records = try readJSONLines(recorded.jsonLines)
        let index = try #require(
            records.firstIndex { $0.groupKey.contains("demoBusyLoop") }, "\(records.map(\.groupKey))")
        // The samples whose stack holds the function (a few lose its frame when the leaf has no
        // frame record), counted in the record's own call tree.
        func through(_ node: CallTreeNode) -> Int {
            node.frame?.symbol?.contains("demoBusyLoop") == true
                ? node.count : node.children.reduce(0) { $0 + through($1) }
        }
        let samples = through(try #require(records[index].callTree))
        #expect(samples > 0)
        let output = directory.appendingPathComponent("fresh.pb.gz")
        let export = try perfkit([
            "stalls", recorded.jsonLines.path, "--format", "pprof", "--stall", "\(index + 1)", "-o", output.path,
        ])
        #expect(export.status == 0, "\(export.stderr)")
        let top = try goToolPprof(["-top", output.path], in: directory)
        #expect(top.status == 0, "\(top.stderr)")
        #expect(try pprofTopRow(top.stdout, naming: "demoBusyLoop").cum == samples, "\(top.stdout)")
    }

    @Test func goToolPprofFocusesOnAStallByItsLabels() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try writeStalls([Self.busyStall, Self.poolStall], in: directory)
        let output = directory.appendingPathComponent("stalls.pb.gz")
        #expect(try perfkit(["stalls", input.path, "--format", "pprof", "-o", output.path]).status == 0)

        let pool = try goToolPprof(["-top", "-tagfocus", "watchdog=pool", output.path], in: directory)
        #expect(pool.status == 0, "\(pool.stderr)")
        #expect(try pprofTopRow(pool.stdout, naming: "App.worker").cum == 5, "\(pool.stdout)")
        #expect(!pool.stdout.contains("App.checksum"))
        let busy = try goToolPprof(["-top", "-tagfocus", "stall_id=1", output.path], in: directory)
        #expect(try pprofTopRow(busy.stdout, naming: "App.checksum").cum == 14, "\(busy.stdout)")
        let tags = try goToolPprof(["-tags", output.path], in: directory)
        #expect(tags.status == 0, "\(tags.stderr)")
        // `-tags` rows: `   20.0 (80.00%): cpu-bound`.
        for tag in ["cpu-bound", "starved", "main", "pool", "1", "2", "42", "7"] {
            #expect(tags.stdout.contains("%): \(tag)\n"), "\(tag) in \(tags.stdout)")
        }
        #expect(!tags.stdout.contains("%): 0\n"), "no thread 0")
        // The frame's file and line, by line granularity.
        let lines = try goToolPprof(["-top", "-lines", output.path], in: directory)
        #expect(lines.stdout.contains("/srv/app/Sources/App/Checksum.swift:12"), "\(lines.stdout)")
    }
}
