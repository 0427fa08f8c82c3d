import CProbe
import Synchronization

/// A target watched by pings: the watchdog posts a tiny job and times its arrival. A ping that
/// has not arrived means the target has been busy at least since it was posted.
protocol Pinger: Sendable {
    /// Posts the ping numbered `generation`; it records its arrival when it runs.
    func post(generation: UInt64)
    /// Generation of the latest ping that ran.
    var arrivedGeneration: UInt64 { get }
    /// When the latest ping ran (CLOCK_MONOTONIC ns).
    var arrivedAt: UInt64 { get }
    /// The one thread to sample while a ping is late, or nil when there is none (see
    /// ``poolThreads()`` for targets that run on several threads at once).
    var threadID: Int32? { get }
    /// Every thread of a pool whose starvation is watched, to be sampled together; nil for
    /// targets with one thread to sample.
    func poolThreads() -> [PoolThread]?
}

extension Pinger {
    func poolThreads() -> [PoolThread]? { nil }
}

/// Where and when the latest ping ran. Shared by every kind of pinger; written by the pings,
/// read by the watchdog's thread.
final class PingArrivals: Sendable {
    let signal: Int32
    private let arrived = Atomic<UInt64>(0)
    private let arrivedTime = Atomic<UInt64>(0)
    private let lastThread = Atomic<Int32>(0)

    init(signal: Int32) {
        self.signal = signal
    }

    /// Runs inside ping `generation`, on the target's thread. Returns true when this thread ran
    /// its first ping, so callers can learn about it once.
    @discardableResult
    func arrive(generation: UInt64, thread tid: Int32 = cprobe_gettid()) -> Bool {
        // A new thread must have libunwind ready before it is signalled, and accept the signal
        // (libdispatch workers block every asynchronous signal).
        let firstOnThisThread = cprobe_prepare_thread(signal) == 1
        lastThread.store(tid, ordering: .relaxed)
        arrivedTime.store(cprobe_monotonic_ns(), ordering: .relaxed)
        arrived.store(generation, ordering: .releasing)
        return firstOnThisThread
    }

    var generation: UInt64 { arrived.load(ordering: .acquiring) }
    var time: UInt64 { arrivedTime.load(ordering: .acquiring) }

    /// The thread that ran the latest ping, or nil before the first one.
    var thread: Int32? {
        let tid = lastThread.load(ordering: .relaxed)
        return tid == 0 ? nil : tid
    }
}
