import Foundation
import NIOCore
import NIOPosix
import ProbeRecords
import Probe
import ProbeNIO
import Synchronization
import Testing

@inline(never)
func blockTheLoopForProbeNIOTest(milliseconds: Int) {
    let end = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
    var x: UInt64 = 1
    while DispatchTime.now().uptimeNanoseconds < end { x = x &* 6_364_136_223_846_793_005 &+ 1 }
    if x == 42 { print("") }
}

final class NIOStallCollector: Sendable {
    private let records = Mutex<[StallRecord]>([])
    var all: [StallRecord] { records.withLock { $0 } }
    func add(_ record: StallRecord) { records.withLock { $0.append(record) } }
}

/// The calling thread's kernel id, from `/proc/thread-self` (`PID/task/TID`).
func currentThreadID() -> Int32? {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"))
        .flatMap { $0.split(separator: "/").last }.flatMap { Int32($0) }
}

@Suite(.serialized)
struct EventLoopGroupWatchdogTests {
    func configuration(_ collector: NIOStallCollector) -> WatchdogConfiguration {
        var configuration = WatchdogConfiguration(name: "event-loop", threshold: .milliseconds(100))
        configuration.sampleInterval = .milliseconds(20)
        configuration.metrics = false
        configuration.onStall = { collector.add($0) }
        return configuration
    }

    /// One watchdog per loop, named by index; an idle group has no stall; a 300 ms job on loop 1
    /// is one stall of `event-loop-1`, sampled on that loop's own thread, naming the job.
    @Test func aStallIsReportedByItsLoopsWatchdogOnItsThread() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        defer { try? group.syncShutdownGracefully() }
        let loops = Array(group.makeIterator())
        let collector = NIOStallCollector()
        let watchdogs = EventLoopGroupWatchdog(watching: group, configuration: configuration(collector))
        #expect(watchdogs.watchdogs.map(\.configuration.name) == ["event-loop-0", "event-loop-1"])
        try watchdogs.start()
        #expect(watchdogs.watchdogs.allSatisfy { $0.isRunning })
        Thread.sleep(forTimeInterval: 0.3)
        #expect(collector.all.isEmpty)

        let loopThread = try loops[1].submit { currentThreadID() }.wait()
        try #require(loopThread != nil)
        try loops[1].submit { blockTheLoopForProbeNIOTest(milliseconds: 300) }.wait()
        Thread.sleep(forTimeInterval: 0.15)  // the end of the stall is seen
        watchdogs.stop()
        watchdogs.stop()  // a no-op
        #expect(!watchdogs.watchdogs.contains { $0.isRunning })

        let stalls = collector.all
        try #require(stalls.count == 1)
        #expect(stalls[0].watchdog == "event-loop-1")
        // Starved when other processes kept the loop's thread from most of the CPU it wanted.
        #expect(stalls[0].classification == .cpuBound)
        #expect(stalls[0].threadID == loopThread)
        let symbols = stalls[0].topStack.compactMap(\.symbol)
        #expect(symbols.contains { $0.contains("blockTheLoopForProbeNIOTest") }, "top stack: \(symbols)")
    }

    /// A loop another watchdog already watches (under any name) is refused with an error naming
    /// that watchdog, and no loop of the group is left watched; once it stops, the group starts.
    @Test func aLoopWatchedTwiceIsRefusedAndNoneStarts() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        defer { try? group.syncShutdownGracefully() }
        let loops = Array(group.makeIterator())
        let collector = NIOStallCollector()
        var single = configuration(collector)
        single.name = "my-loop"
        let alone = Watchdog(watching: .eventLoop(loops[1]), configuration: single)
        try alone.start()
        defer { alone.stop() }

        let watchdogs = EventLoopGroupWatchdog(watching: group, configuration: configuration(collector))
        let error = #expect(throws: Watchdog.StartError.self) { try watchdogs.start() }
        #expect(error?.kind == .alreadyWatched)
        #expect(error?.description.contains("\"my-loop\"") == true, "\(String(describing: error))")
        #expect(!watchdogs.watchdogs.contains { $0.isRunning })

        alone.stop()
        try watchdogs.start()
        #expect(watchdogs.watchdogs.allSatisfy { $0.isRunning })
        watchdogs.stop()
    }
}

/// Work submitted right after `start()` queues behind the watchdogs' first pings, whatever else
/// starts beside them (here a flight recorder, which once made the watchdog threads post their first
/// ping late): a stall right after the start is the loop's own, on its thread.
@Suite struct FirstStallAfterStartTests {
    @Test func aStallRightAfterTheStartIsTheLoopsOwn() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        defer { try? group.syncShutdownGracefully() }
        let loops = Array(group.makeIterator())
        let collector = NIOStallCollector()
        var configuration = WatchdogConfiguration(name: "event-loop", threshold: .milliseconds(100))
        configuration.metrics = false
        configuration.onStall = { collector.add($0) }
        let flight = FlightRecorder()
        try Self.startUnlessAnotherRuns(flight)
        defer { flight.stop() }
        let watchdogs = EventLoopGroupWatchdog(watching: group, configuration: configuration)
        try watchdogs.start()
        try loops[0].submit { blockTheLoopForProbeNIOTest(milliseconds: 400) }.wait()
        Thread.sleep(forTimeInterval: 0.15)
        watchdogs.stop()
        let stall = try #require(collector.all.first)
        #expect(stall.threadID != 0 && stall.classification == .cpuBound, "\(stall.classification) \(stall.threadID)")
    }

    /// Another suite's recorder running in this process is as good a neighbour for this test.
    static func startUnlessAnotherRuns(_ flight: FlightRecorder) throws(ProcessProfiler.ProfileError) {
        do {
            try flight.start()
        } catch {
            if error.kind != .busy { throw error }
        }
    }
}
