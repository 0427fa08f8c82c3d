import Foundation
import PerfReport
import Testing
import ProbeRecords

/// `perfkit symbolicate` on the stalls `perfkit watch-demo` records, run as a user would.
extension CommandLineTests {
    /// Runs watch-demo into `directory`; returns its report.json and stalls.jsonl.
    func recordDemoStalls(in directory: URL) throws -> (report: URL, jsonLines: URL) {
        let outcome = try perfkit([
            "watch-demo", "--threshold-ms", "60", "--stall-ms", "250", "--output", directory.path, "--format", "json",
        ])
        try #require(outcome.status == 0, "\(outcome.stderr)")
        let report = try #require(try reports(in: directory).first)
        return (report, report.deletingLastPathComponent().appendingPathComponent("stalls.jsonl"))
    }

    func readJSONLines(_ url: URL) throws -> [StallRecord] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map {
            try ReportCoding.decoder().decode(StallRecord.self, from: Data($0.utf8))
        }
    }

    /// The frame of `function` in any stall's top stack.
    func stackFrame(_ function: String, in stalls: [StallRecord]) -> StackFrame? {
        stalls.lazy.flatMap(\.topStack).first { $0.symbol?.contains(function) == true }
    }

    @Test func symbolicateAddsFileAndLineToTheDemoStalls() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let recorded = try recordDemoStalls(in: directory)
        let before = try #require(try ReportCoding.load(from: recorded.report).stalls)
        #expect(before.allSatisfy { $0.topStack.allSatisfy { $0.file == nil } }, "watch-demo records no lines")

        let symbolicatedReport = directory.appendingPathComponent("symbolicated.json")
        let outcome = try perfkit(["symbolicate", recorded.report.path, "--output", symbolicatedReport.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("demoBusyLoop(milliseconds: Swift.Int) -> () at "))
        #expect(outcome.stdout.contains("WatchDemoCommand.swift:"))

        let after = try #require(try ReportCoding.load(from: symbolicatedReport).stalls)
        #expect(after.count == before.count)
        for function in ["demoBusyLoop", "demoLockWait"] {
            let frame = try #require(stackFrame(function, in: after), "\(function) not in the stacks")
            #expect(
                frame.file?.hasSuffix("Sources/Probe/ProbeCommands/WatchDemoCommand.swift") == true, "\(frame)")
            #expect((frame.line ?? 0) > 0)
        }
        // The call tree's frames are filled too (the HTML flame graph reads them).
        func files(_ node: CallTreeNode) -> [String] {
            [node.frame?.file].compactMap { $0 } + node.children.flatMap(files)
        }
        #expect(after.compactMap(\.callTree).flatMap(files).contains { $0.hasSuffix("WatchDemoCommand.swift") })

        // The Probe JSON-lines file gives the same, written back as JSON lines.
        let symbolicatedLines = directory.appendingPathComponent("symbolicated.jsonl")
        let linesOutcome = try perfkit(["symbolicate", recorded.jsonLines.path, "--output", symbolicatedLines.path])
        #expect(linesOutcome.status == 0, "\(linesOutcome.stderr)")
        let records = try readJSONLines(symbolicatedLines)
        #expect(records.count == before.count)
        #expect(stackFrame("demoLockWait", in: records)?.file?.hasSuffix("WatchDemoCommand.swift") == true)
        #expect(stackFrame("demoLockWait", in: records)?.line == stackFrame("demoLockWait", in: after)?.line)

        // binutils' addr2line, the fallback, finds the same lines.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/addr2line") {
            let addr2line = try perfkit(["symbolicate", recorded.jsonLines.path, "--symbolizer", "/usr/bin/addr2line"])
            #expect(addr2line.status == 0, "\(addr2line.stderr)")
            let busy = try #require(stackFrame("demoBusyLoop", in: after))
            #expect(
                addr2line.stdout.contains("demoBusyLoop(milliseconds: Swift.Int) -> () at \(busy.file!):\(busy.line!)"))
        }
    }

    @Test func symbolicateRefusesFramesFromAnotherBuild() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let recorded = try recordDemoStalls(in: directory)
        // Pretend the stacks came from another build of perfkit.
        let otherBuild = String(repeating: "ab", count: 20)
        func rebuilt(_ frame: StackFrame) -> StackFrame {
            var frame = frame
            if frame.module?.hasSuffix("/perfkit") == true { frame.buildID = otherBuild }
            return frame
        }
        let records = try readJSONLines(recorded.jsonLines).map { record in
            var record = record
            record.topStack = record.topStack.map(rebuilt)
            return record
        }
        let encoder = ReportCoding.encoder()
        encoder.outputFormatting = [.sortedKeys]
        let input = directory.appendingPathComponent("other-build.jsonl")
        try Data(records.map { String(decoding: try encoder.encode($0), as: UTF8.self) + "\n" }.joined().utf8)
            .write(to: input)

        let output = directory.appendingPathComponent("out.jsonl")
        let outcome = try perfkit(["symbolicate", input.path, "--output", output.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("build ID differs: stack abababababab"), "\(outcome.stdout)")
        let result = try readJSONLines(output)
        let busy = try #require(stackFrame("demoBusyLoop", in: result))
        #expect(busy.file == nil && busy.line == nil, "no lines from a different build")
        // Frames of other modules (libc) still get their lines.
        #expect(result.flatMap(\.topStack).contains { $0.module?.contains("libc") == true && $0.line != nil })
    }

    @Test(arguments: [
        ("garbage.jsonl", "this is not json\n", "line 1: not valid JSON"),
        ("wrong.jsonl", "{\"watchdog\": \"main\"}\n", "line 1: not a stall record"),
        ("empty.json", "", "the file is empty"),
        ("nostalls.json", "[]", "line 1: not a stall record"),
    ])
    func symbolicateRejectsMalformedInputInOneLine(name: String, contents: String, problem: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent(name)
        try Data(contents.utf8).write(to: input)
        let output = directory.appendingPathComponent("out.json")
        let outcome = try perfkit(["symbolicate", input.path, "--output", output.path])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("\(input.path): \(problem)"), "\(outcome.stderr)")
        #expect(outcome.stderr.split(separator: "\n").count == 1, "\(outcome.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path), "nothing written")
    }

    @Test func symbolicateReadsTheCompleteRecordsBeforeATornLastLine() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = try readJSONLines(Self.watchDemoFixture)
        let input = try writeTornStalls(fixture, in: directory)
        let output = directory.appendingPathComponent("out.jsonl")
        let outcome = try perfkit(["symbolicate", input.path, "--output", output.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.hasPrefix("warning: \(input.path): line \(fixture.count + 1): incomplete last record"))
        #expect(outcome.stderr.split(separator: "\n").count == 1, "\(outcome.stderr)")
        #expect(try readJSONLines(output).count == fixture.count, "the complete records, and only those")
    }

    @Test func symbolicateOfAMissingFileOrAReportWithoutStallsNamesIt() throws {
        let outcome = try perfkit(["symbolicate", "/nonexistent/stalls.jsonl"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("/nonexistent/stalls.jsonl: cannot read: no such file"), "\(outcome.stderr)")
        #expect(outcome.stderr.split(separator: "\n").count == 1)

        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let benchmarksOnly = directory.appendingPathComponent("report.json")
        try writeReport([1, 2, 3], to: benchmarksOnly)
        let noStalls = try perfkit(["symbolicate", benchmarksOnly.path])
        #expect(noStalls.status == 1)
        #expect(noStalls.stderr.contains("\(benchmarksOnly.path): no stalls to symbolicate"), "\(noStalls.stderr)")
    }
}
