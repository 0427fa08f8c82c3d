import Foundation
import PerfkitGzip
import PerfkitPprof
import Testing

/// `perfkit memory`, as a user runs it on a heap profile: one `probe-test-helper heap-hold` serves,
/// fetched by `go tool pprof -proto`.
extension CommandLineTests {
    @Test func memoryPrintsTheTypeAndFunctionThatHoldTheHeap() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let helper = Process()
        helper.executableURL = Self.packageRoot.appendingPathComponent(".build/debug/probe-test-helper")
        helper.arguments = ["heap-hold"]
        let output = Pipe()
        let input = Pipe()
        helper.standardOutput = output
        helper.standardInput = input
        try helper.run()
        defer {
            try? input.fileHandleForWriting.close()
            helper.waitUntilExit()
        }
        var text = ""
        while !text.contains("sum=") {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let port = try #require(
            text.split(separator: "\n").first { $0.hasPrefix("port=") }.map { String($0.dropFirst("port=".count)) })
        let file = directory.appendingPathComponent("heap-1-20261128T000000.000Z.pb.gz")
        // Fetched as a user would keep it: pprof's own copy of the served profile.
        let fetch = try goToolPprof(
            ["-proto", "-output", file.path, "http://127.0.0.1:\(port)/debug/pprof/heap"], in: directory)
        #expect(fetch.status == 0, "\(fetch.stderr)")

        // A directory: its newest heap profile.
        let outcome = try perfkit(["memory", directory.path, "--top", "3"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        let byType = try #require(lines.firstIndex { $0.hasPrefix("By Swift type (inuse_space)") })
        #expect(lines[byType + 1].hasSuffix("probe_test_helper.HeldRecord"), "\(outcome.stdout)")
        let bySite = try #require(lines.firstIndex { $0.hasPrefix("By allocating function") })
        #expect(lines[bySite + 1].contains("storeHeldRecords"), "\(outcome.stdout)")

        let allocated = try perfkit(["memory", file.path, "--sample-index", "alloc_space"])
        let allocatedLines = allocated.stdout.split(separator: "\n").map(String.init)
        let allocatedSite = try #require(allocatedLines.firstIndex { $0.hasPrefix("By allocating function") })
        #expect(allocatedLines[allocatedSite + 1].contains("churnShortArrays"), "\(allocated.stdout)")
    }

    @Test func memoryOfWhatIsNoHeapProfileIsAOneLineError() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let garbage = directory.appendingPathComponent("garbage.pb")
        try Data("not a profile".utf8).write(to: garbage)
        for (arguments, named) in [
            (["memory", garbage.path], garbage.path),
            (["memory", "/nonexistent/heap.pb.gz"], "/nonexistent/heap.pb.gz"),
            (["memory", directory.path], directory.path),
        ] {
            let outcome = try perfkit(arguments)
            #expect(outcome.status == 1, "\(arguments)")
            #expect(outcome.stderr.contains(named), "\(outcome.stderr)")
            #expect(outcome.stderr.split(separator: "\n").count == 1, "\(outcome.stderr)")
        }
    }

    /// What the heap route encodes, read back: samples, labels, functions and comments survive.
    @Test func aPprofProfileReadsBackAsItWasWritten() throws {
        var profile = PprofProfile(sampleTypes: [.init(type: "alloc_space", unit: "bytes")])
        profile.functions = [.init(id: 1, name: "storeOrders()", systemName: "$s5Shop11storeOrdersyyF")]
        profile.locations = [.init(id: 7, mappingID: 0, address: 0x1234, lines: [.init(functionID: 1, line: 12)])]
        profile.samples = [
            .init(
                locationIDs: [7], values: [1 << 40],
                labels: [
                    .init(key: "type", value: .string("Shop.Order")), .init(key: "n", value: .number(-3, unit: "x")),
                ])
        ]
        profile.comments = ["a comment"]
        profile.defaultSampleType = "alloc_space"
        let read = try PprofProfile(decoding: try Gzip.decompress(try Gzip.compress(profile.encoded())))
        #expect(read.sampleTypes == profile.sampleTypes)
        #expect(read.samples.first?.values == [1 << 40])
        #expect(read.samples.first?.labels == profile.samples[0].labels)
        #expect(read.functionNames(of: read.samples[0]) == ["storeOrders()"])
        #expect(read.comments == ["a comment"] && read.defaultSampleType == "alloc_space")
        #expect(throws: PprofProfile.DecodingError.self) { try PprofProfile(decoding: Data([0x0A, 0x05, 0x01])) }
    }
}
