/// How often the resting clock looks at a parked watchdog's target.
///
/// A look is a timed wake-up, 36–53 µs of CPU on a VM whose timer interrupts are VM exits, about
/// 75 µs with the look itself (docs/probe-in-a-server.md). An idle example server watched at a
/// 100 ms threshold paid +0.17% of a core looking every half threshold and +0.09% looking every
/// threshold (2026-11-25). The half threshold matters only for a target that may stall: a pinged
/// target (event loop, queue) is timed from the first look that finds it busy, so looks every half
/// threshold catch every stall of 1.5× the threshold. So while the target has been seen working
/// lately the clock looks every `active` interval; once nothing has been seen for `activeWindow`,
/// every `idle` interval — a replica with no traffic pays the lower rate, one with traffic the
/// finer timing.
struct RestingLookSchedule: Equatable {
    /// Between looks while the target was seen working within `activeWindow`.
    let active: UInt64
    /// Between looks once it was not.
    let idle: UInt64

    /// How long after the target was last seen working the looks stay at the `active` interval.
    static let activeWindow: UInt64 = 2_000_000_000

    /// `configured` (`WatchdogConfiguration.restingLookInterval`) fixes both intervals; nil
    /// schedules half the threshold (at most 250 ms) while active, the threshold (at most 500 ms)
    /// while idle. Never below `tick`, the watchdog's own interval between looks.
    init(threshold: UInt64, tick: UInt64, configured: UInt64?) {
        if let configured {
            active = max(tick, configured)
            idle = active
        } else {
            active = max(tick, min(250_000_000, threshold / 2))
            idle = max(active, min(500_000_000, threshold))
        }
    }

    /// The interval to the next look at `now`, the target last seen working at `lastWorkSeen`
    /// (nil: never).
    func interval(now: UInt64, lastWorkSeen: UInt64?) -> UInt64 {
        guard let lastWorkSeen, now.saturatingSubtract(lastWorkSeen) < Self.activeWindow else { return idle }
        return active
    }
}
