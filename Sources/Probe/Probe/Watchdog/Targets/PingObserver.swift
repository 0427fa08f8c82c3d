import Metrics

/// A target watched by pings (the main queue, a serial queue, an executor): busy from the first
/// ping it has not run, its thread the one that ran the latest ping. An executor's thread idle in
/// its epoll wait (an event loop with nothing to do) is not pinged: each ping would wake it.
final class PingObserver: TargetObserver {
    private var pings: Pings
    private let pingInterval: UInt64
    /// Reads whether an executor's thread sits in its epoll wait; nil for a queue.
    private let epollWait: ThreadSyscallReader?

    /// `mayWaitInEpoll`: the target is an executor that may own one thread waiting in `epoll_wait`.
    init(
        pinger: any Pinger, configuration: WatchdogConfiguration, intervals: WatchdogIntervals,
        mayWaitInEpoll: Bool = false
    ) {
        pings = Pings(pinger: pinger, configuration: configuration)
        pingInterval = intervals.pingInterval
        epollWait = mayWaitInEpoll ? ThreadSyscallReader() : nil
    }

    func begin(now: UInt64) { pings.send(now: now) }

    var isTiming: Bool { pings.outstanding }

    func busyPeriod(now: UInt64) -> BusyPeriod? {
        let sent = pings.sentAt
        if pings.collect(now: now) { lastCollected = CollectedBusyPeriod(since: sent, arrived: pings.pinger.arrivedAt) }
        if !pings.outstanding, pings.isDue(now: now, interval: pingInterval) {
            if isIdleInItsWait {
                pings.skip(now: now)  // nothing to time: looked at again next tick
            } else {
                pings.send(now: now)
            }
        }
        return pings.outstanding ? BusyPeriod(since: pings.sentAt, thread: pings.pinger.threadID) : nil
    }

    var lastBusyEnd: UInt64? { pings.pinger.arrivedAt }

    var watchedThread: Int32? { pings.pinger.threadID }

    /// The latest ping collected: when it was sent and when it ran.
    private var lastCollected: CollectedBusyPeriod?

    func busyEnd(of since: UInt64) -> UInt64? { lastCollected?.end(of: since) }

    /// A ping due is the loop thread's to send and time. An event loop out of its wait is working;
    /// a queue is only due its ping.
    func restingLook(now: UInt64) -> RestingLook {
        guard pings.isDue(now: now, interval: pingInterval) else { return .nothing }
        if isIdleInItsWait {
            pings.skip(now: now)
            return .nothing
        }
        return RestingLook(sawWork: epollWait != nil, needsTheLoop: true)
    }

    private var isIdleInItsWait: Bool {
        guard let epollWait, let thread = pings.pinger.threadID else { return false }
        return epollWait.isInEpollWait(thread)
    }
}

/// The pings sent to a target: the one out, when it was sent, and each one's lag (``LoopLag``,
/// with metrics on).
struct Pings {
    let pinger: any Pinger
    private let lag: LoopLag?
    private var generation: UInt64 = 0
    /// When the latest ping was sent, or the target last found idle instead (CLOCK_MONOTONIC ns).
    private(set) var sentAt: UInt64 = 0
    /// A ping is out and has not run: the target has been busy since `sentAt`.
    private(set) var outstanding = false

    init(pinger: any Pinger, configuration: WatchdogConfiguration) {
        self.pinger = pinger
        lag =
            configuration.metrics
            ? LoopLag(watchdog: configuration.name, factory: configuration.metricsFactory ?? MetricsSystem.factory)
            : nil
    }

    mutating func send(now: UInt64) {
        generation += 1
        sentAt = now
        outstanding = true
        pinger.post(generation: generation)
    }

    /// Notes that the ping out has run, and its lag; true when it had.
    @discardableResult
    mutating func collect(now: UInt64) -> Bool {
        guard outstanding, pinger.arrivedGeneration == generation else { return false }
        outstanding = false
        lag?.record(pinger.arrivedAt.saturatingSubtract(sentAt), now: now)
        return true
    }

    /// The target was found idle in its wait: no ping, a lag of 0 (work given now runs at once),
    /// the next ping due an interval from now.
    mutating func skip(now: UInt64) {
        sentAt = now
        lag?.record(0, now: now)
    }

    func isDue(now: UInt64, interval: UInt64) -> Bool { now.saturatingSubtract(sentAt) >= interval }
}
