import CProbe
import Synchronization

/// How a thread that runs its own loop (an event loop, a game loop) tells a ``Watchdog`` that it
/// is working: `busy()` when it wakes up with work, `idle()` just before it waits for more, or
/// `beat()` once per turn for a loop that never waits.
///
/// A thread idle in its wait is never a stall and is never signalled. Make the heartbeat on the
/// thread it describes (`Heartbeat.currentThread()`): that records the thread's id and primes
/// the unwinder there. Each call is a vDSO clock read and an atomic store (~20–30 ns), no lock.
public final class Heartbeat: Sendable {
    /// The kernel thread id of the watched thread.
    public let threadID: Int32
    /// CLOCK_MONOTONIC ns when the current busy period began; 0 while idle.
    private let busySince = Atomic<UInt64>(0)
    /// CLOCK_MONOTONIC ns when the latest busy period ended, so a stall's duration is exact
    /// rather than rounded up to the watchdog's next look.
    private let lastEnd = Atomic<UInt64>(0)

    /// A heartbeat for the calling thread. Primes libunwind here, so that its lazy set-up never
    /// first happens inside the sampling signal handler, and unblocks the sampling `signal` on
    /// this thread (threads started from libdispatch workers inherit a mask blocking every
    /// asynchronous signal). Use the same signal as the watchdog's configuration.
    public static func currentThread(signal: Int32 = WatchdogConfiguration.defaultSignal) -> Heartbeat {
        cprobe_prepare_thread(signal)
        return Heartbeat(threadID: cprobe_gettid())
    }

    private init(threadID: Int32) {
        self.threadID = threadID
    }

    /// The loop woke up with work: starts a busy period unless one is going on.
    @inline(__always)
    public func busy() {
        if busySince.load(ordering: .relaxed) == 0 {
            busySince.store(cprobe_monotonic_ns(), ordering: .releasing)
        }
    }

    /// `busy()` at a given CLOCK_MONOTONIC time: for the tests that run a watchdog in virtual time.
    func busy(at now: UInt64) {
        if busySince.load(ordering: .relaxed) == 0 { busySince.store(now, ordering: .releasing) }
    }

    /// `idle()` at a given CLOCK_MONOTONIC time (and the virtual-time tests' way to call it).
    @inline(__always)
    func idle(at now: UInt64) {
        lastEnd.store(now, ordering: .relaxed)
        busySince.store(0, ordering: .releasing)
    }

    /// The loop is about to wait for work: not a stall, however long the wait.
    @inline(__always)
    public func idle() { idle(at: cprobe_monotonic_ns()) }

    /// One turn of a loop that never waits: a new busy period starts now.
    @inline(__always)
    public func beat() {
        let now = cprobe_monotonic_ns()
        lastEnd.store(now, ordering: .relaxed)
        busySince.store(now, ordering: .releasing)
    }

    /// When the latest busy period ended (CLOCK_MONOTONIC ns).
    var lastBusyEnd: UInt64 { lastEnd.load(ordering: .acquiring) }

    /// When the current busy period began (CLOCK_MONOTONIC ns), or nil while idle.
    var currentBusySince: UInt64? {
        let value = busySince.load(ordering: .acquiring)
        return value == 0 ? nil : value
    }
}
