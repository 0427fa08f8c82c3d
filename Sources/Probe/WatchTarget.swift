import CProbe
import Dispatch
import Foundation
import Synchronization

/// What a ``Watchdog`` watches.
public enum WatchTarget: Sendable {
    /// The main queue (drained by the main thread's run loop, or after `dispatchMain()` by the
    /// thread libdispatch drains it on), by pings.
    case mainQueue
    /// A serial queue, by pings. The thread sampled is the one that ran the queue's latest ping
    /// (a serial queue hops between worker threads; see README).
    case queue(DispatchQueue)
    /// A thread that reports its busy periods itself.
    case heartbeat(Heartbeat)
}

/// Pings for a queue target: the watchdog posts a tiny block and times its arrival. A ping that
/// has not arrived means the queue has been busy at least since it was posted.
@_spi(Benchmarks) public final class QueuePinger: Sendable {
    let queue: DispatchQueue
    let isMain: Bool
    let signal: Int32
    /// Generation of the latest ping that ran.
    private let arrived = Atomic<UInt64>(0)
    /// Thread that ran the latest ping.
    private let lastThread = Atomic<Int32>(0)

    public init(queue: DispatchQueue, isMain: Bool, signal: Int32) {
        self.queue = queue
        self.isMain = isMain
        self.signal = signal
    }

    public func post(generation: UInt64) {
        queue.async { [self] in
            let tid = cprobe_gettid()
            if lastThread.load(ordering: .relaxed) != tid {
                // A new thread for this queue: make sure libunwind is ready on it before it is
                // signalled, and that it accepts the signal (libdispatch workers block them all).
                cprobe_prime_unwinder()
                cprobe_unblock_signal(signal)
                lastThread.store(tid, ordering: .relaxed)
            }
            arrived.store(generation, ordering: .releasing)
        }
    }

    public var arrivedGeneration: UInt64 { arrived.load(ordering: .acquiring) }

    /// The thread to sample while the queue is stalled: the one that ran the latest ping. Even
    /// for the main queue this is not always the main thread: on Linux `dispatchMain()` parks the
    /// main thread and a worker drains the main queue.
    var threadID: Int32? {
        let tid = lastThread.load(ordering: .relaxed)
        return tid == 0 ? nil : tid
    }
}
