import Foundation
import Synchronization

/// A watchdog's looks at a heartbeat, made by hand on a clock that moves only when told and a
/// reader that samples nothing: what a look costs the watchdog's (or the resting clock's) thread,
/// for perfkit's benchmarks. Not API.
@_spi(Benchmarks) public final class WatchdogLooks {
    private let clock = SteppedClock()
    private let heartbeat = Heartbeat.currentThread()
    private let loop: WatchdogLoop
    private let busy: Bool

    /// `busy`: the heartbeat is in one long stall, each look is the loop thread's (the stall timed
    /// and sampled); otherwise it is idle, each look is the resting clock's.
    public init(busy: Bool) {
        var configuration = WatchdogConfiguration(name: "benchmark", threshold: .milliseconds(100))
        configuration.metrics = false
        let watchdog = Watchdog(watching: .heartbeat(heartbeat), configuration: configuration)
        loop = WatchdogLoop(
            watchdog: watchdog, slot: -1, stopRequest: DispatchSemaphore(value: 0), clock: clock,
            reader: SilentReader())
        self.busy = busy
        loop.begin()
        if busy {
            heartbeat.busy(at: clock.monotonicNanoseconds())
            loop.look(scheduledFor: clock.monotonicNanoseconds())
        }
        // Let go: the looks may come from another thread (the resting clock's take it themselves).
        loop.ownership.release()
    }

    /// Makes `looks` looks 1 ms apart.
    public func run(_ looks: Int) {
        if busy { loop.ownership.take() }
        for _ in 0..<looks {
            clock.step(by: 1_000_000)
            let now = clock.monotonicNanoseconds()
            if busy {
                if !loop.isResting { loop.look(scheduledFor: now) }
            } else {
                _ = loop.needsItsThread(now: now)
                _ = loop.restingTick(now: now)
            }
        }
        if busy { loop.ownership.release() }
    }
}

/// CLOCK_MONOTONIC and CLOCK_BOOTTIME moving together, only when told.
private final class SteppedClock: WatchdogClock {
    private let now = Atomic<UInt64>(1_000_000_000_000)

    func step(by nanoseconds: UInt64) { now.add(nanoseconds, ordering: .relaxed) }
    func monotonicNanoseconds() -> UInt64 { now.load(ordering: .relaxed) }
    func bootTimeNanoseconds() -> UInt64 { now.load(ordering: .relaxed) }
    func runQueueWaitNanoseconds() -> UInt64? { 0 }
    func date() -> Date { Date(timeIntervalSince1970: 1_800_000_000) }
}

/// A stalled thread that gives no samples and no CPU time.
private final class SilentReader: StalledThreadReader {
    func cpuNanoseconds(of tid: Int32) -> Int64? { nil }
    func isAsleep(_ tid: Int32) -> Bool { false }
    func sample(_ tid: Int32, into samples: inout ThreadSamples, since: UInt64, now: UInt64) {}
}
