/// Tells, at a look, whether the whole process could not run since the previous one: a wake-up
/// later than it was due (the process was stopped, or starved of CPU), or CLOCK_BOOTTIME running
/// ahead of CLOCK_MONOTONIC (the machine was suspended). The watched thread could not run then
/// either, so that time is excused from a busy period rather than called a stall.
///
/// Each looker keeps its own: a watchdog's loop between its looks, the resting clock between its
/// looks at parked watchdogs, so that a pause while a watchdog rests is not timed as a stall of the
/// busy period it interrupted (docs/probe-in-a-server.md#the-resting-clock).
struct PauseDetector {
    /// CLOCK_BOOTTIME − CLOCK_MONOTONIC at the previous look.
    private var bootOffset: Int64

    init(monotonic: UInt64, boot: UInt64) {
        bootOffset = Int64(bitPattern: boot &- monotonic)
    }

    /// What a look made at `monotonic` (CLOCK_BOOTTIME `boot`) that was due at `due` saw: how late
    /// it was, and the span the pause may have covered — from `since`, the earliest it could have
    /// begun (the previous look, or `due` when the time before it is accounted for otherwise).
    mutating func look(monotonic: UInt64, boot: UInt64, due: UInt64, since: UInt64) -> Pause {
        let newOffset = Int64(bitPattern: boot &- monotonic)
        let suspended = UInt64(max(0, newOffset - bootOffset))
        bootOffset = newOffset
        return Pause(
            lateness: max(monotonic.saturatingSubtract(due), suspended),
            span: max(monotonic.saturatingSubtract(min(since, due)), suspended))
    }
}

/// A look's view of a pause of the process before it (``PauseDetector``).
struct Pause: Equatable {
    /// How much later than due the look came (or how long the machine was suspended).
    var lateness: UInt64
    /// How much time the pause may have taken: all of it excused when there was a pause.
    var span: UInt64

    static let none = Pause(lateness: 0, span: 0)

    /// The time to excuse: the span when the look was later than `tolerance` (a late timer or a
    /// busy CPU is not a pause), else nothing.
    func excused(tolerance: UInt64) -> UInt64 { lateness > tolerance ? span : 0 }
}
