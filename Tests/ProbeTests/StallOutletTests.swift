import Foundation
import InMemoryLogging
import Logging
import MetricsTestKit
import ProbeRecords
import Testing

@testable @_spi(Benchmarks) import Probe

@Suite(.serialized)
struct StallOutletTests {
    /// (In virtual time, like the other outlet tests of a heartbeat's stalls: the stack is a real one
    /// of this binary, `stackOfAVirtualStall`.)
    @Test func aStallGoesToTheLogTheMetricsAndTheJSONLinesFile() throws {
        let logs = InMemoryLogHandler()
        let metrics = TestMetrics()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("probe-\(getpid())-stalls.jsonl").path
        defer { unlink(path) }
        var configuration = WatchdogConfiguration(name: "outlets", threshold: .milliseconds(80))
        configuration.sampleInterval = .milliseconds(20)
        configuration.logger = Logger(label: "probe-test", factory: { _ in logs })
        configuration.metricsFactory = metrics
        configuration.jsonLinesPath = path
        let virtual = VirtualTimeWatchdog(configuration: configuration)
        virtual.work(for: .milliseconds(250))
        virtual.advanceTime(by: .milliseconds(100))
        virtual.stop()

        let warnings = logs.entries.filter { $0.level == .warning }
        try #require(warnings.count == 1)
        #expect("\(warnings[0].message)".hasPrefix("stall of "))
        guard case .array(let top)? = warnings[0].metadata["probe.top"] else {
            Issue.record("no probe.top metadata: \(warnings[0].metadata)")
            return
        }
        #expect(top.contains { "\($0)".contains("stackOfAVirtualStall") })

        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        try #require(lines.count == 1)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let record = try decoder.decode(StallRecord.self, from: Data(lines[0].utf8))

        // Counted by class and culprit (the innermost function of the test's own code), timed by class.
        let culprit = StallCulprits.shortName(groupKey: record.groupKey)
        #expect(culprit.contains("stackOfAVirtualStall()"), "\(culprit)")
        let dimensions = [("watchdog", "outlets"), ("class", record.classification.rawValue)]
        #expect(try metrics.expectCounter("probe_stalls_total", dimensions + [("culprit", culprit)]).totalValue == 1)
        let timer = try metrics.expectTimer("probe_stall_duration_seconds", dimensions)
        #expect(timer.values.count == 1)
        #expect(timer.values == [250_000_000])
        #expect(record.watchdog == "outlets")
        #expect(record.topStack.contains { $0.symbol?.contains("stackOfAVirtualStall") == true })
        #expect(
            record.topStack.allSatisfy { $0.module != nil },
            "\(record.topStack.map { "\($0.symbol ?? "?") \($0.module ?? "-") 0x\(String($0.address, radix: 16))" })")
    }

    /// A busy period of the threshold or more that is no stall for what was excused from it is
    /// logged (notice, with how much was excused and why) and counted in `probe_stalls_excused_total`:
    /// never silent. One shorter than the threshold is neither.
    @Test func aStallExcusedForAWaitForACPUIsLoggedAndCounted() throws {
        let logs = InMemoryLogHandler()
        let metrics = TestMetrics()
        var configuration = WatchdogConfiguration(name: "virtual", threshold: .milliseconds(100))
        configuration.logger = Logger(label: "probe-test", factory: { _ in logs })
        configuration.metricsFactory = metrics
        let virtual = VirtualTimeWatchdog(configuration: configuration)
        virtual.reader.state = "R"
        virtual.work(for: .milliseconds(40))
        virtual.advanceTime(by: .milliseconds(300))
        virtual.work(for: .milliseconds(60), waitingForCPU: .milliseconds(100), then: .milliseconds(10))
        virtual.advanceTime(by: .milliseconds(100))
        #expect(virtual.watchdog.recentStalls.isEmpty)
        #expect(virtual.watchdog.statistics.pausesIgnored == 1)
        let notices = logs.entries.filter { $0.level == .notice }
        try #require(notices.count == 1, "\(logs.entries.map(\.message))")
        #expect("\(notices[0].message)".hasPrefix("busy period of 170 ms on virtual not reported as a stall"))
        #expect("\(notices[0].message)".contains("(its thread waited for a CPU)"), "\(notices[0].message)")
        #expect(notices[0].metadata["probe.reason"] == "cpu-wait")
        let excused = try metrics.expectCounter(
            "probe_stalls_excused_total", [("watchdog", "virtual"), ("reason", "cpu-wait")])
        #expect(excused.totalValue == 1)
    }

    /// A stalls file that cannot be written is refused at `start()`, naming the file and why.
    @Test func anUnwritableStallsFileIsRefusedAtStart() throws {
        let path = "/nonexistent-\(getpid())/stalls.jsonl"
        var configuration = WatchdogConfiguration(name: "unwritable", threshold: .milliseconds(80))
        configuration.jsonLinesPath = path
        let watchdog = Watchdog(watching: .queue(DispatchQueue(label: "unwritable")), configuration: configuration)
        let error = #expect(throws: Watchdog.StartError.self) { try watchdog.start() }
        #expect(error?.kind == .outletUnusable)
        #expect(error?.description.contains(path) == true, "\(String(describing: error))")
        #expect(error?.description.contains("No such file or directory") == true)
        #expect(!watchdog.isRunning)
    }

    /// A profile directory that cannot take files is refused at `start()` the same way.
    @Test func anUnwritableProfileDirectoryIsRefusedAtStart() throws {
        let directory = "/nonexistent-\(getpid())/profiles"
        var configuration = WatchdogConfiguration(name: "no-profiles", threshold: .milliseconds(80))
        configuration.pprofDirectory = directory
        let watchdog = Watchdog(watching: .queue(DispatchQueue(label: "no-profiles")), configuration: configuration)
        let error = #expect(throws: Watchdog.StartError.self) { try watchdog.start() }
        #expect(error?.kind == .outletUnusable)
        #expect(
            error?.description
                == "watchdog \"no-profiles\": cannot write stall profiles in \(directory): No such file or directory")
        #expect(!watchdog.isRunning)
    }

    /// Records the file no longer takes (its directory removed) are counted, in the watchdog and
    /// in `probe_stall_records_dropped_total`, and logged once; the other outlets still get them.
    @Test func recordsTheFileDoesNotTakeAreCountedAndLoggedOnce() throws {
        let logs = InMemoryLogHandler()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("probe-gone-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let collector = StallCollector()
        var configuration = WatchdogConfiguration(name: "gone", threshold: .milliseconds(80))
        configuration.sampleInterval = .milliseconds(20)
        let metrics = TestMetrics()
        configuration.metricsFactory = metrics
        configuration.logger = Logger(label: "probe-test", factory: { _ in logs })
        configuration.jsonLinesPath = directory + "/stalls.jsonl"
        configuration.onStall = { collector.add($0) }
        let virtual = VirtualTimeWatchdog(configuration: configuration)
        try FileManager.default.removeItem(atPath: directory)
        virtual.work(for: .milliseconds(250))
        virtual.advanceTime(by: .milliseconds(50))
        virtual.work(for: .milliseconds(250))
        virtual.advanceTime(by: .milliseconds(100))
        virtual.stop()
        #expect(collector.all.count == 2)
        #expect(virtual.watchdog.unwrittenRecords == 2)
        #expect(try metrics.expectCounter("probe_stall_records_dropped_total", [("watchdog", "gone")]).totalValue == 2)
        let errors = logs.entries.filter { $0.level == .error }
        #expect(errors.count == 1, "\(errors.map(\.message))")
        #expect(errors.first.map { "\($0.message)".contains("could not be appended") } == true)
    }

    /// Each stall's profile lands in `pprofDirectory` as one whole `.pb` file (renamed into
    /// place, no temporary left), which the real `go tool pprof` reads with the stalled function.
    @Test func aStallsProfileIsWrittenWholeInThePprofDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("probe-pprof-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let collector = StallCollector()
        var configuration = WatchdogConfiguration(name: "pprof out", threshold: .milliseconds(80))
        configuration.sampleInterval = .milliseconds(5)
        configuration.metrics = false
        configuration.pprofDirectory = directory.path
        configuration.onStall = { collector.add($0) }
        let virtual = VirtualTimeWatchdog(configuration: configuration)
        virtual.work(for: .milliseconds(250))
        virtual.advanceTime(by: .milliseconds(100))
        virtual.stop()

        let record = try #require(collector.all.first)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        try #require(files.count == 1, "\(files)")
        #expect(files[0].hasPrefix("stall-pprof_out-") && files[0].hasSuffix("-\(getpid())-1.pb"), "\(files)")
        #expect(virtual.watchdog.unwrittenRecords == 0)

        let pprof = try GoPprof.run(["-top", directory.appendingPathComponent(files[0]).path], in: directory)
        #expect(pprof.status == 0, "\(pprof.stderr)")
        let top = pprof.stdout
        let samples = record.callTree?.count ?? 0
        #expect(samples > 0)
        #expect(top.contains("Total samples = \(samples)"), "\(top)")
        #expect(top.contains("stackOfAVirtualStall"), "\(top)")
    }

    /// A pinged target's lateness goes to `probe_loop_lag_seconds` at every ping, healthy or
    /// not, and the largest of the last seconds to `probe_loop_lag_max_seconds` (in virtual time:
    /// a queue idle for 300 ms, then busy for 200).
    @Test func everyPingsLagIsRecorded() throws {
        let metrics = TestMetrics()
        var configuration = WatchdogConfiguration(name: "lagging", threshold: .milliseconds(80))
        configuration.sampleInterval = .milliseconds(20)
        configuration.metricsFactory = metrics
        let virtual = VirtualTimeWatchdog(configuration: configuration, pinged: true)
        virtual.advanceTime(by: .milliseconds(300))
        virtual.work(for: .milliseconds(200))
        virtual.advanceTime(by: .milliseconds(200))
        virtual.stop()
        let lags = try metrics.expectTimer("probe_loop_lag_seconds", [("watchdog", "lagging")]).values
        #expect(lags.count >= 3, "pings of the idle queue, and the late one: \(lags)")
        #expect(lags.contains(0), "\(lags)")
        #expect(lags.contains { $0 >= 100_000_000 && $0 <= 200_000_000 }, "the ping that waited for the work: \(lags)")
        let maxLag = try metrics.expectGauge("probe_loop_lag_max_seconds", [("watchdog", "lagging")])
        #expect((maxLag.lastValue ?? 0) == Double(lags.max() ?? 0) / 1e9)
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
