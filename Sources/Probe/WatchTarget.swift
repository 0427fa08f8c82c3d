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
    /// Generation of the latest ping that ran, and when it ran (CLOCK_MONOTONIC ns).
    private let arrived = Atomic<UInt64>(0)
    private let arrivedTime = Atomic<UInt64>(0)
    /// Thread that ran the latest ping.
    private let lastThread = Atomic<Int32>(0)
    /// The queue's libdispatch object, once a ping confirmed that its state word names the
    /// thread draining it (0 until then, or when the layout did not match).
    private let queueObject = Atomic<UInt>(0)
    /// Set when a ping saw a drain owner that was not its own thread: the layout is not the
    /// one expected, so only `lastThread` is used.
    private let ownerUnreliable = Atomic<Bool>(false)

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
            checkDrainOwner(tid: tid)
            arrivedTime.store(cprobe_monotonic_ns(), ordering: .relaxed)
            arrived.store(generation, ordering: .releasing)
        }
    }

    /// Runs inside a ping: the queue is being drained by this very thread, so its state word
    /// must name it. Confirms (or rules out) reading the drain owner from outside.
    private func checkDrainOwner(tid: Int32) {
        guard !ownerUnreliable.load(ordering: .relaxed), let current = cprobe_dispatch_current_queue() else { return }
        if cprobe_dispatch_drain_owner(current) == tid {
            queueObject.store(UInt(bitPattern: current), ordering: .releasing)
        } else {
            ownerUnreliable.store(true, ordering: .relaxed)
            queueObject.store(0, ordering: .releasing)
        }
    }

    /// True once a ping confirmed the drain owner can be read from the queue's state.
    var readsDrainOwner: Bool {
        queueObject.load(ordering: .acquiring) != 0 && !ownerUnreliable.load(ordering: .relaxed)
    }

    /// When the latest ping ran (CLOCK_MONOTONIC ns).
    var arrivedAt: UInt64 { arrivedTime.load(ordering: .acquiring) }

    public var arrivedGeneration: UInt64 { arrived.load(ordering: .acquiring) }

    /// The thread to sample while the queue is stalled: the one that ran the latest ping. Even
    /// for the main queue this is not always the main thread: on Linux `dispatchMain()` parks the
    /// main thread and a worker drains the main queue.
    ///
    /// When the queue's drain owner can be read (checked from inside the queue), the thread
    /// draining it now is used instead, and nil when nobody drains it (the queue waits for a
    /// worker thread: starved, nothing to sample).
    var threadID: Int32? {
        let object = queueObject.load(ordering: .acquiring)
        if object != 0, !ownerUnreliable.load(ordering: .relaxed), let pointer = UnsafeRawPointer(bitPattern: object) {
            let owner = cprobe_dispatch_drain_owner(pointer)
            return owner == 0 ? nil : owner
        }
        let tid = lastThread.load(ordering: .relaxed)
        return tid == 0 ? nil : tid
    }
}
