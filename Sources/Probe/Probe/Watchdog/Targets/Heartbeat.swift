import CProbe
import Synchronization

/// How a thread that runs its own loop (an event loop, a game loop) tells a ``Watchdog`` that it
/// is working: `busy()` when it wakes up with work, `idle()` just before it waits for more, or
/// `beat()` once per turn for a loop that never waits.
///
/// A thread idle in its wait is never a stall and is never signalled. Make the heartbeat on the
/// thread it describes (`Heartbeat.currentThread()`): that records the thread's id and primes
/// the unwinder there. Each call is a vDSO clock read and a few atomic loads and stores (~20–30 ns);
/// a lock only when a busy period of half the watchdog's threshold or more ends (kept for its looks).
public final class Heartbeat: Sendable {
    /// The kernel thread id of the watched thread.
    public let threadID: Int32
    /// CLOCK_MONOTONIC ns when the current busy period began; 0 while idle.
    private let busySince = Atomic<UInt64>(0)
    /// CLOCK_MONOTONIC ns when the latest busy period ended, so a stall's duration is exact
    /// rather than rounded up to the watchdog's next look.
    private let lastEnd = Atomic<UInt64>(0)
    /// Busy periods at least this long (ns) are kept as they end, for a watchdog whose looks missed
    /// them (its thread was recording the stall before, or waited for a CPU); 0: none kept.
    private let keepsLongerThan = Atomic<UInt64>(0)
    /// Those periods, oldest first, until a look takes them (at most ``keptLimit``), and their count.
    private let kept = Mutex<[EndedBusyPeriod]>([])
    private let keptCount = Atomic<Int>(0)
    static let keptLimit = 16

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
        keepIfLong(since: busySince.load(ordering: .relaxed), end: now)
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
        keepIfLong(since: busySince.load(ordering: .relaxed), end: now)
        lastEnd.store(now, ordering: .relaxed)
        busySince.store(now, ordering: .releasing)
    }

    /// Keeps the busy period that ends now when it lasted long enough, before it is seen to end:
    /// a look that finds it ended then finds it kept too, and does not report it twice.
    @inline(__always)
    private func keepIfLong(since: UInt64, end: UInt64) {
        let longerThan = keepsLongerThan.load(ordering: .relaxed)
        if longerThan > 0, since > 0, end &- since >= longerThan { keep(EndedBusyPeriod(since: since, end: end)) }
    }

    @inline(never)
    private func keep(_ period: EndedBusyPeriod) {
        kept.withLock { kept in
            if kept.count == Self.keptLimit { kept.removeFirst() }
            kept.append(period)
            keptCount.store(kept.count, ordering: .releasing)
        }
    }

    /// From now on, keeps busy periods at least `nanoseconds` long as they end (the shortest a
    /// watchdog on this heartbeat asks for).
    func keepBusyPeriods(longerThan nanoseconds: UInt64) {
        var current = keepsLongerThan.load(ordering: .relaxed)
        while current == 0 || nanoseconds < current {
            let (exchanged, original) = keepsLongerThan.compareExchange(
                expected: current, desired: nanoseconds, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// The kept busy periods, oldest first; kept no more.
    func takeKeptBusyPeriods() -> [EndedBusyPeriod] {
        guard keptCount.load(ordering: .acquiring) > 0 else { return [] }
        return kept.withLock { kept in
            defer {
                kept.removeAll(keepingCapacity: true)
                keptCount.store(0, ordering: .releasing)
            }
            return kept
        }
    }

    /// Whether a busy period is kept for a look to take.
    var hasKeptBusyPeriods: Bool { keptCount.load(ordering: .acquiring) > 0 }

    /// When the latest busy period ended (CLOCK_MONOTONIC ns).
    var lastBusyEnd: UInt64 { lastEnd.load(ordering: .acquiring) }

    /// When the current busy period began (CLOCK_MONOTONIC ns), or nil while idle.
    var currentBusySince: UInt64? {
        let value = busySince.load(ordering: .acquiring)
        return value == 0 ? nil : value
    }
}

/// A busy period of a heartbeat's thread that has ended (CLOCK_MONOTONIC ns).
struct EndedBusyPeriod: Equatable {
    var since: UInt64
    var end: UInt64
}
