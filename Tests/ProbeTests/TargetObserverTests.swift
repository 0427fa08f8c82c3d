import CProbe
import Foundation
import Synchronization
import Testing

@testable import Probe

/// Each kind of target's observer alone: what it reports as busy, when it pings, what the resting
/// clock's look finds. How the loop turns that into stalls is in `StallDetectionTests`.
struct TargetObserverTests {
    private let ms: UInt64 = 1_000_000
    private let configuration: WatchdogConfiguration = {
        var configuration = WatchdogConfiguration(name: "observer", threshold: .milliseconds(100))
        configuration.metrics = false
        return configuration
    }()
    private var intervals: WatchdogIntervals { WatchdogIntervals(configuration) }

    @Test func aHeartbeatIsBusyFromItsOwnStampAndNeedsTheLoopOnlyThen() {
        let heartbeat = Heartbeat.currentThread()
        let observer = HeartbeatObserver(heartbeat, samplingAge: 3_000)
        heartbeat.idle(at: 1_000)
        #expect(observer.busyPeriod(now: 2_000) == nil)
        #expect(observer.restingLook(now: 2_000) == .nothing)
        heartbeat.busy(at: 3_000)
        #expect(observer.busyPeriod(now: 5_000) == BusyPeriod(since: 3_000, thread: heartbeat.threadID))
        #expect(observer.restingLook(now: 5_000) == RestingLook(sawWork: true, needsTheLoop: true))
        heartbeat.idle(at: 7_000)
        #expect(observer.busyPeriod(now: 8_000) == nil)
        #expect(observer.lastBusyEnd == 7_000)
        #expect(!observer.isTiming, "nothing to time between looks")
        // Busy from the sampling age on: kept as it ended, for a look that missed it, once.
        #expect(observer.restingLook(now: 8_000) == RestingLook(sawWork: true, needsTheLoop: true))
        #expect(observer.endedJobs(now: 8_000) == [EndedJob(thread: heartbeat.threadID, since: 3_000, end: 7_000)])
        #expect(observer.endedJobs(now: 9_000).isEmpty && observer.restingLook(now: 9_000) == .nothing)
        heartbeat.busy(at: 10_000)
        heartbeat.idle(at: 12_000)
        #expect(observer.endedJobs(now: 13_000).isEmpty, "shorter than the sampling age")
    }

    @Test func aQueueIsBusyFromItsFirstPingNotRunAndPingedEveryQuarterThreshold() {
        let clock = VirtualWatchdogClock()
        let pinger = ScriptedPinger(clock: clock)
        let observer = PingObserver(pinger: pinger, configuration: configuration, intervals: intervals)
        let start = clock.monotonicNanoseconds()
        observer.begin(now: start)
        #expect(observer.isTiming, "the first ping is out")
        #expect(observer.busyPeriod(now: start) == nil, "an idle queue ran it at once")
        #expect(!observer.isTiming)
        pinger.setBusy(true)
        clock.set(start + 24 * ms)
        #expect(observer.restingLook(now: start + 24 * ms) == .nothing, "no ping due before a quarter threshold")
        #expect(observer.busyPeriod(now: start + 24 * ms) == nil)
        clock.set(start + 25 * ms)
        #expect(
            observer.restingLook(now: start + 25 * ms) == RestingLook(sawWork: false, needsTheLoop: true),
            "a queue is only due its ping: not seen working")
        #expect(observer.busyPeriod(now: start + 25 * ms) == BusyPeriod(since: start + 25 * ms, thread: 4242))
        clock.set(start + 40 * ms)
        #expect(observer.busyPeriod(now: start + 40 * ms)?.since == start + 25 * ms, "busy while the ping waits")
        pinger.setBusy(false)
        #expect(observer.busyPeriod(now: start + 40 * ms) == nil)
        #expect(observer.lastBusyEnd == start + 40 * ms)
    }

    @Test func anEventLoopWaitingInEpollIsNotPingedAndOneOutOfItsWaitIsWorking() throws {
        let waiting = try EpollWaitingThread()
        defer { waiting.stop() }
        let idlePinger = CountingPinger(thread: waiting.threadID)
        let idle = PingObserver(
            pinger: idlePinger, configuration: configuration, intervals: intervals, mayWaitInEpoll: true)
        var now = 1_000 * ms
        // The thread may take a moment to enter its wait.
        let deadline = Date().addingTimeInterval(10)
        while idle.restingLook(now: now) != .nothing, Date() < deadline {
            now += intervals.pingInterval
            Thread.sleep(forTimeInterval: 0.001)
        }
        #expect(idle.restingLook(now: now + intervals.pingInterval) == .nothing)
        #expect(idle.busyPeriod(now: now + 2 * intervals.pingInterval) == nil)
        #expect(idlePinger.posted == 0, "an event loop waiting for work is never woken by a ping")

        // This thread is running, out of any wait: pinged, and counted as working.
        let runningPinger = CountingPinger(thread: cprobe_gettid())
        let running = PingObserver(
            pinger: runningPinger, configuration: configuration, intervals: intervals, mayWaitInEpoll: true)
        #expect(running.restingLook(now: now) == RestingLook(sawWork: true, needsTheLoop: true))
        #expect(running.busyPeriod(now: now) == BusyPeriod(since: now, thread: cprobe_gettid()))
        #expect(runningPinger.posted == 1)
    }
}

/// A pinger whose pings never run, on a given thread.
private final class CountingPinger: Pinger {
    private let count = Atomic<Int>(0)
    let threadID: Int32?

    init(thread: Int32) { threadID = thread }

    func post(generation: UInt64) { count.add(1, ordering: .relaxed) }
    var posted: Int { count.load(ordering: .relaxed) }
    var arrivedGeneration: UInt64 { 0 }
    var arrivedAt: UInt64 { 0 }
}

/// A thread blocked in `epoll_wait` until stopped, as an idle event loop is. (Swift's Glibc module
/// has no epoll: the calls are looked up in libc.)
private final class EpollWaitingThread: Sendable {
    private typealias Create = @convention(c) (Int32) -> Int32
    private typealias Control = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    private typealias Wait = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32

    private let epoll: Int32
    private let pipe: (read: Int32, write: Int32)
    private let tid = Mutex<Int32>(0)
    private let exited = DispatchSemaphore(value: 0)

    init() throws {
        let libc = dlopen(nil, RTLD_NOW)
        guard let create = dlsym(libc, "epoll_create1"), let control = dlsym(libc, "epoll_ctl"),
            let wait = dlsym(libc, "epoll_wait")
        else { throw POSIXError(.ENOSYS) }
        var fds: [Int32] = [0, 0]
        guard Glibc.pipe(&fds) == 0 else { throw POSIXError(.EMFILE) }
        pipe = (fds[0], fds[1])
        epoll = unsafeBitCast(create, to: Create.self)(0)
        guard epoll >= 0 else { throw POSIXError(.EMFILE) }
        // struct epoll_event: EPOLLIN (1) in its first four bytes; 16 bytes hold it on every layout.
        var event = [UInt32](repeating: 0, count: 4)
        event[0] = 1
        let epoll = epoll
        _ = event.withUnsafeMutableBytes { unsafeBitCast(control, to: Control.self)(epoll, 1, fds[0], $0.baseAddress) }
        let started = DispatchSemaphore(value: 0)
        let waitCall = unsafeBitCast(wait, to: Wait.self)
        let thread = Thread { [self] in
            tid.withLock { $0 = cprobe_gettid() }
            started.signal()
            var events = [UInt32](repeating: 0, count: 4)
            while events.withUnsafeMutableBytes({ waitCall(epoll, $0.baseAddress, 1, -1) }) < 0, errno == EINTR {}
            exited.signal()
        }
        thread.start()
        started.wait()
    }

    var threadID: Int32 { tid.withLock { $0 } }

    func stop() {
        var byte: UInt8 = 1
        _ = write(pipe.write, &byte, 1)
        exited.wait()
        close(pipe.read)
        close(pipe.write)
        close(epoll)
    }
}
