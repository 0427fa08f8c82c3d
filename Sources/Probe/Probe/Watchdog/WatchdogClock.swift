import CProbe
import Foundation

/// Where a watchdog's loop reads time: CLOCK_MONOTONIC for busy periods, looks and samples,
/// CLOCK_BOOTTIME to see that the machine was suspended, the looking thread's wait for a CPU to tell
/// a busy machine from a paused process, and the wall clock for a stall's start date.
///
/// A seam, as swift-nio's `EmbeddedEventLoop` is one for event-loop time: the loop never reads a
/// clock of its own, so that the tests drive stall detection, thresholds, pauses and ongoing stalls
/// in virtual time, deterministically and without sleeping (see `VirtualTimeWatchdog` in the tests).
protocol WatchdogClock: Sendable {
    /// CLOCK_MONOTONIC, ns: the time base of heartbeats, pings and pool jobs.
    func monotonicNanoseconds() -> UInt64
    /// CLOCK_BOOTTIME, ns: runs ahead of CLOCK_MONOTONIC by the time the machine was suspended.
    func bootTimeNanoseconds() -> UInt64
    /// How long the calling thread has waited, runnable, for a CPU (ns since it began), nil when
    /// unknown: a late look that waited this long for a CPU was not paused.
    func runQueueWaitNanoseconds() -> UInt64?
    /// The wall clock, for the start dates of records.
    func date() -> Date
}

/// The clocks of the machine (vDSO reads, ~20 ns each; the wait for a CPU is a pread of
/// /proc/thread-self/schedstat).
struct SystemWatchdogClock: WatchdogClock {
    func monotonicNanoseconds() -> UInt64 { cprobe_monotonic_ns() }
    func bootTimeNanoseconds() -> UInt64 { cprobe_boottime_ns() }
    func runQueueWaitNanoseconds() -> UInt64? {
        let wait = cprobe_thread_run_queue_wait_ns()
        return wait >= 0 ? UInt64(wait) : nil
    }
    func date() -> Date { Date() }
}
