import CProbe
import Dispatch
import Synchronization

/// Pings for a dispatch queue target: the watchdog posts a tiny block and times its arrival.
/// Besides the thread that ran the latest ping, a serial queue can tell which thread drains it
/// right now (libdispatch's state word), which is the one sampled when that can be read.
@_spi(Benchmarks) public final class QueuePinger: Pinger {
    let queue: DispatchQueue
    let isMain: Bool
    let signal: Int32
    private let arrivals: PingArrivals
    /// The queue's libdispatch object, once a ping confirmed that its state word names the
    /// thread draining it (0 until then, or when the layout did not match).
    private let queueObject = Atomic<UInt>(0)
    /// Set when a ping saw a drain owner that was not its own thread: the layout is not the
    /// one expected, so only the latest ping's thread is used.
    private let ownerUnreliable = Atomic<Bool>(false)

    public init(queue: DispatchQueue, isMain: Bool, signal: Int32) {
        self.queue = queue
        self.isMain = isMain
        self.signal = signal
        self.arrivals = PingArrivals(signal: signal)
    }

    public func post(generation: UInt64) {
        queue.async { [self] in
            let tid = cprobe_gettid()
            checkDrainOwner(tid: tid)
            arrivals.arrive(generation: generation, thread: tid)
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

    var arrivedAt: UInt64 { arrivals.time }

    public var arrivedGeneration: UInt64 { arrivals.generation }

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
        return arrivals.thread
    }
}
