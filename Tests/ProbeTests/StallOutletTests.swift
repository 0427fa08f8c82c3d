import Foundation
import InMemoryLogging
import Logging
import MetricsTestKit
import PerfReport
import Testing

@testable import Probe

@inline(never)
func stallForOutletTest() {
    spinForProbeTest(milliseconds: 250)
}

@Suite(.serialized)
struct StallOutletTests {
    @Test func aStallGoesToTheLogTheMetricsAndTheJSONLinesFile() throws {
        let thread = WatchedThread()
        defer { thread.finish() }
        let logs = InMemoryLogHandler()
        let metrics = TestMetrics()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("probe-\(getpid())-stalls.jsonl").path
        defer { unlink(path) }
        var configuration = WatchdogConfiguration(name: "outlets", threshold: .milliseconds(80))
        configuration.sampleInterval = .milliseconds(20)
        configuration.logger = Logger(label: "probe-test", factory: { _ in logs })
        configuration.metricsFactory = metrics
        configuration.jsonLinesPath = path
        let watchdog = Watchdog(watching: .heartbeat(thread.heartbeat), configuration: configuration)
        try watchdog.start()
        thread.run { stallForOutletTest() }
        Thread.sleep(forTimeInterval: 0.12)
        watchdog.stop()

        let warnings = logs.entries.filter { $0.level == .warning }
        try #require(warnings.count == 1)
        #expect("\(warnings[0].message)".hasPrefix("stall of "))
        guard case .array(let top)? = warnings[0].metadata["probe.top"] else {
            Issue.record("no probe.top metadata: \(warnings[0].metadata)")
            return
        }
        #expect(top.contains { "\($0)".contains("stallForOutletTest") })

        #expect(try metrics.expectCounter("probe_stalls_total", [("watchdog", "outlets")]).totalValue == 1)
        let timer = try metrics.expectTimer("probe_stall_duration", [("watchdog", "outlets")])
        #expect(timer.values.count == 1)
        #expect((timer.values.first ?? 0) >= 150_000_000)

        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        try #require(lines.count == 1)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let record = try decoder.decode(StallRecord.self, from: Data(lines[0].utf8))
        #expect(record.watchdog == "outlets")
        #expect(record.topStack.contains { $0.symbol?.contains("stallForOutletTest") == true })
        #expect(
            record.topStack.allSatisfy { $0.module != nil },
            "\(record.topStack.map { "\($0.symbol ?? "?") \($0.module ?? "-") 0x\(String($0.address, radix: 16))" })")
    }

    /// A stalls file that cannot be written is refused at `start()`, naming the file and why.
    @Test func anUnwritableStallsFileIsRefusedAtStart() throws {
        let path = "/nonexistent-\(getpid())/stalls.jsonl"
        var configuration = WatchdogConfiguration(name: "unwritable", threshold: .milliseconds(80))
        configuration.jsonLinesPath = path
        let watchdog = Watchdog(watching: .queue(DispatchQueue(label: "unwritable")), configuration: configuration)
        let error = #expect(throws: Watchdog.StartError.self) { try watchdog.start() }
        #expect(error?.description.contains(path) == true, "\(String(describing: error))")
        #expect(error?.description.contains("No such file or directory") == true)
        #expect(!watchdog.isRunning)
    }

    /// A record the file no longer takes (its directory removed) is counted and logged; the
    /// other outlets still get it.
    @Test func aRecordTheFileDoesNotTakeIsCountedAndLogged() throws {
        let thread = WatchedThread()
        defer { thread.finish() }
        let logs = InMemoryLogHandler()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("probe-gone-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let collector = StallCollector()
        var configuration = WatchdogConfiguration(name: "gone", threshold: .milliseconds(80))
        configuration.sampleInterval = .milliseconds(20)
        configuration.metrics = false
        configuration.logger = Logger(label: "probe-test", factory: { _ in logs })
        configuration.jsonLinesPath = directory + "/stalls.jsonl"
        configuration.onStall = { collector.add($0) }
        let watchdog = Watchdog(watching: .heartbeat(thread.heartbeat), configuration: configuration)
        try watchdog.start()
        try FileManager.default.removeItem(atPath: directory)
        thread.run { stallForOutletTest() }
        Thread.sleep(forTimeInterval: 0.12)
        watchdog.stop()
        #expect(collector.all.count == 1)
        #expect(watchdog.unwrittenRecords == 1)
        #expect(logs.entries.contains { $0.level == .error && "\($0.message)".contains("could not be appended") })
    }

    @Test func symbolicatorNamesInternalFunctionsWithModuleAndBuildID() throws {
        // An internal (non-exported) function of this test binary: only .symtab names it.
        let frames = Symbolicator().symbolicate(stack: captureStackForSymbolicatorTest())
        let frame = try #require(frames.first { $0.symbol?.contains("captureStackForSymbolicatorTest") == true })
        #expect(frame.module?.hasSuffix(".xctest") == true || frame.module?.contains("perfkitPackageTests") == true)
        #expect(frame.buildID.map { $0.count >= 16 } == true)
        #expect(frame.moduleOffset != nil)
        #expect(frame.symbol?.contains("$s") == false, "demangled: \(frame.symbol ?? "")")
    }
}

@inline(never)
func captureStackForSymbolicatorTest() -> [UInt] {
    Probe.captureCurrentStack()
}
