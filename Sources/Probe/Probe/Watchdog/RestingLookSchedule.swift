/// How often the resting clock looks at a parked watchdog's target: every `active` interval while
/// the target was seen working within `activeWindow`, every `idle` interval once it was not. A
/// pinged target is timed from the first look that finds it busy, so the finer looks keep a busy
/// replica's stalls timed closely; an idle replica pays the fewer wake-ups (measurements:
/// docs/probe-in-a-server.md#the-resting-clock).
struct RestingLookSchedule: Equatable {
    /// How long after the target was last seen working the looks stay at the `active` interval.
    static let activeWindow: Duration = .seconds(2)
    /// The longest default intervals, active and idle (at half the threshold and the threshold).
    static let longestActive: Duration = .milliseconds(250)
    static let longestIdle: Duration = .milliseconds(500)

    /// Between looks while the target was seen working within `activeWindow` (ns).
    let active: UInt64
    /// Between looks once it was not (ns).
    let idle: UInt64
    private let activeWindow = Self.activeWindow.nanoseconds

    /// `configured` (`WatchdogConfiguration.restingLookInterval`) fixes both intervals; nil
    /// schedules half the threshold while active, the threshold while idle, each capped. Never
    /// below `tick`, the watchdog's own interval between looks.
    init(threshold: Duration, tick: Duration, configured: Duration?) {
        if let configured {
            active = max(tick, configured).nanoseconds
            idle = active
        } else {
            let active = max(tick, min(Self.longestActive, threshold / 2))
            self.active = active.nanoseconds
            idle = max(active, min(Self.longestIdle, threshold)).nanoseconds
        }
    }

    /// The interval to the next look at `now`, the target last seen working at `lastWorkSeen`
    /// (nil: never), in CLOCK_MONOTONIC ns.
    func interval(now: UInt64, lastWorkSeen: UInt64?) -> UInt64 {
        guard let lastWorkSeen, now.saturatingSubtract(lastWorkSeen) < activeWindow else { return idle }
        return active
    }
}
