import CProbe
import Foundation
@_spi(Benchmarks) @testable import Probe
import ProbeRecords
import Synchronization
import Testing

/// What a stall's thread computes on its way in (the flight recorder's `before` must name it).
/// It spins until it has had `milliseconds` of CPU: on a loaded machine 300 ms of wall time gave it
/// a fifth of that, too few samples to check (CI-like load, 2026-11-28).
@inline(never) func flightPhaseAForProbeTest(milliseconds: Int) {
    func cpuNanoseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return now.tv_sec * 1_000_000_000 + now.tv_nsec
    }
    let end = cpuNanoseconds() + milliseconds * 1_000_000
    var x = 1
    while cpuNanoseconds() < end { x = x &* 31 &+ 7 }
    blackHoleForProbeTest(x)
}
/// Where it then blocks.
@inline(never) func flightPhaseBForProbeTest(microseconds: UInt32) { usleep(microseconds) }

/// The flight recorder: in ProcessProfilerTests' serialized suite, since both count the process's
/// CPU timers, Probe's threads and `/proc` descriptors.
extension ProcessProfilerTests {
    /// A watchdog on `thread` whose stalls go to `collector` (metrics off).
    func stallWatchdog(
        _ name: String, on thread: WatchedThread, threshold: Int, collecting collector: StallCollector
    ) -> Watchdog {
        var configuration = WatchdogConfiguration(name: name, threshold: .milliseconds(threshold))
        configuration.sampleInterval = .milliseconds(20)
        configuration.metrics = false
        configuration.onStall = { collector.add($0) }
        return Watchdog(watching: .heartbeat(thread.heartbeat), configuration: configuration)
    }

    func recorder(rate: Int = 97) -> FlightRecorder {
        var configuration = FlightRecorder.Configuration()
        configuration.rate = rate
        return FlightRecorder(configuration: configuration)
    }

    /// A stall that computes in phase A for 300 ms, then blocks in phase B: its record's `before`
    /// holds the thread's CPU samples from 5 s before it began to its record, phase A on top.
    @Test func aStallsRecordCarriesWhatItsThreadComputedOnTheWayIn() throws {
        let thread = WatchedThread()
        defer { thread.finish() }
        let flight = recorder()
        try flight.start()
        defer { flight.stop() }
        let collector = StallCollector()
        let watchdog = stallWatchdog("flight", on: thread, threshold: 400, collecting: collector)
        try watchdog.start()
        thread.run {
            flightPhaseAForProbeTest(milliseconds: 300)
            flightPhaseBForProbeTest(microseconds: 600_000)
        }
        Thread.sleep(forTimeInterval: 0.3)  // the recorder's next drain, and the stall's end seen
        watchdog.stop()
        let stalls = collector.all
        try #require(stalls.count == 1)
        let before = try #require(stalls[0].before, "no lead-up in \(stalls[0])")
        let top = before.topStack.compactMap(\.symbol)
        #expect(top.contains { $0.contains("flightPhaseAForProbeTest") }, "\(top)")
        #expect(before.sampleCount >= 10, "\(before.sampleCount) samples at 97 Hz over 300 ms of CPU")
        #expect(before.fromNanoseconds == -5e9 && before.toNanoseconds >= 850e6, "\(before)")
        // Written out with the record, read back the same.
        let decoded = try JSONDecoder().decode(StallRecord.self, from: JSONEncoder().encode(stalls[0]))
        #expect(decoded.before == before)
    }

    /// A thread born just after the recorder started gets its timer within 100 ms (threads come
    /// and go at a service's start): its first stall's `before` has what it computed.
    @Test func aThreadBornAfterTheStartIsRecordedWithinATenthOfASecond() throws {
        let flight = recorder()
        try flight.start()
        defer { flight.stop() }
        Thread.sleep(forTimeInterval: 0.05)
        let thread = WatchedThread()
        defer { thread.finish() }
        let collector = StallCollector()
        let watchdog = stallWatchdog("newborn", on: thread, threshold: 400, collecting: collector)
        try watchdog.start()
        thread.run {
            flightPhaseAForProbeTest(milliseconds: 300)
            flightPhaseBForProbeTest(microseconds: 300_000)
        }
        Thread.sleep(forTimeInterval: 0.2)
        watchdog.stop()
        let stall = try #require(collector.all.first)
        let before = try #require(stall.before, "no lead-up")
        #expect(before.topStack.contains { $0.symbol?.contains("flightPhaseAForProbeTest") == true })
    }

    /// A cpu profile taken while a watched thread stalls labels the samples inside the stall with
    /// `stall_id`, `<watchdog>@<start>` as the record has them.
    @Test func samplesInsideAStallAreLabelledWithIt() throws {
        let thread = WatchedThread()
        defer { thread.finish() }
        let collector = StallCollector()
        let watchdog = stallWatchdog("labelled", on: thread, threshold: 100, collecting: collector)
        try watchdog.start()
        let taken = Mutex<ProcessProfiler.Profile?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let profile = try? ProcessProfiler().takeProfile(ProfileRequest(duration: .milliseconds(900)))
            taken.withLock { $0 = profile }
            done.signal()
        }.start()
        Thread.sleep(forTimeInterval: 0.1)
        thread.run { spinForProbeTest(milliseconds: 500) }
        done.wait()
        watchdog.stop()
        let stall = try #require(collector.all.first)
        let profile = try #require(taken.withLock { $0 })
        let directory = try GoPprof.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try save(profile.pprof, in: directory, name: "cpu.pb")
        let id = StallWindows.id(watchdog: "labelled", start: stall.start)
        let top = try GoPprof.run(["-top", "-tagfocus", "stall_id=\(id)", file.path], in: directory)
        #expect(top.status == 0, "\(top.stderr)")
        #expect(
            try GoPprof.topRows(top.stdout).contains { $0.contains("spinForProbeTest") }, "\(id)\n\(top.stdout)")
    }

    @Test func theFlightProfileIsReadByGoToolPprof() throws {
        let spinning = spinner(name: "flight-spin")
        defer { spinning.finish() }
        let flight = recorder()
        try flight.start()
        Thread.sleep(forTimeInterval: 0.6)
        flight.stop()
        let directory = try GoPprof.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try save(flight.profile(), in: directory, name: "flight.pb")
        let top = try GoPprof.run(["-top", "-tagfocus", "thread=flight-spin", file.path], in: directory)
        #expect(top.status == 0, "\(top.stderr)")
        #expect(try GoPprof.topRows(top.stdout).first?.contains("processProfilerTestSpin") == true, "\(top.stdout)")
        let comments = try GoPprof.run(["-comments", file.path], in: directory)
        #expect(comments.stdout.contains("probe flight recorder: rate=97Hz"), "\(comments.stdout)")
    }

    @Test func oneRecorderRunsAtATimeAndNothingOutlivesItsStop() throws {
        let timersBefore = Self.cpuTimers()
        let first = recorder()
        try first.start()
        #expect(FlightRecorder.running === first)
        #expect(Self.threads(named: "probe-flight") == 1)
        #expect(throws: ProcessProfiler.ProfileError.self) { try recorder().start() }
        try first.start()  // already running: nothing happens
        first.stop()
        first.stop()
        #expect(FlightRecorder.running == nil)
        // Its `/proc/self/task` descriptor (the watchdogs of suites beside this one keep thread files open).
        #expect(
            eventually { Self.threads(named: "probe-flight") == 0 && Self.taskDescriptors(directoryOnly: true) == 0 })
        #expect(Self.cpuTimers() == timersBefore, "\(ThreadInfo.read("/proc/self/timers") ?? "")")
        let error = #expect(throws: ProcessProfiler.ProfileError.self) { try recorder(rate: 0).start() }
        #expect(error?.kind == .invalidRate && error?.parameter == "rate")
        var configuration = FlightRecorder.Configuration()
        configuration.keep = .zero
        let keep = #expect(throws: ProcessProfiler.ProfileError.self) {
            try FlightRecorder(configuration: configuration).start()
        }
        #expect(keep?.kind == .invalidConfiguration && keep?.parameter == "keep", "\(String(describing: keep))")
        #expect(FlightRecorder.running == nil)
    }

    @Test func theServerServesTheRunningRecordersSamples() throws {
        let server = ProfileServer(configuration: .init())
        try server.start()
        defer { server.stop() }
        let port = try #require(server.port)
        let none = try #require(TestHTTP.get(port, "/debug/pprof/flight"))
        #expect(none.status == 404, "\(none)")
        let flight = recorder()
        try flight.start()
        defer { flight.stop() }
        let served = try #require(TestHTTP.get(port, "/debug/pprof/flight"))
        #expect(served.status == 200)
        let profile = String(decoding: try TestHTTP.gunzip(served.body), as: UTF8.self)
        #expect(profile.contains("probe flight recorder"))
    }

    /// The ring keeps the newest samples when full and forgets those older than `keep`.
    @Test func theRingKeepsTheNewestAndForgetsTheOld() {
        var ring = FlightRing(bytes: 0)  // the smallest: 16 slots
        #expect(ring.slots == 16)
        let deep = [UInt](1...200)
        for time in 1...20 {
            (time == 20 ? deep : [UInt(time)]).withUnsafeBufferPointer { stack in
                ring.append(thread: time % 3, stack: stack, expirations: 1, time: UInt64(time))
            }
        }
        #expect(ring.count == 16 && ring.oldestTime == 5)
        var seen: [(thread: Int, depth: Int, time: UInt64)] = []
        ring.forEach { thread, stack, _, time in seen.append((thread, stack.count, time)) }
        #expect(seen.map(\.time) == Array(5...20))
        #expect(seen.last?.depth == FlightRing.maxFrames && seen.last?.thread == 2)
        ring.forget(olderThan: 18)
        #expect(ring.count == 3 && ring.oldestTime == 18)
    }
}
