/// Tells, at a look, whether the whole process could not run since the previous one: a wake-up
/// later than it was due that the looking thread did not spend waiting for a CPU (the process was
/// stopped: SIGSTOP, a debugger, a frozen cgroup, a paused VM), or CLOCK_BOOTTIME running ahead of
/// CLOCK_MONOTONIC (the machine was suspended). The watched thread could not run then either, so
/// that time is excused from a busy period rather than called a stall.
///
/// A look late because every CPU was busy is kept apart: it excuses only a busy period whose thread
/// was waiting for a CPU too, not a thread asleep in a wait or a starved pool, whose stall was real to
/// whoever waited on it — excusing it hid 150 ms pool starvations under two busy neighbours
/// (docs/probe-in-a-server.md, "A late look is not a pause"). Without the looking thread's wait for a
/// CPU (a kernel without schedstat) every late look counts as a pause, as before.
///
/// Each looker keeps its own: a watchdog's loop between its looks, the resting clock between its
/// looks at parked watchdogs, so that a pause while a watchdog rests is not timed as a stall of the
/// busy period it interrupted (docs/probe-in-a-server.md#the-resting-clock).
struct PauseDetector {
    /// CLOCK_BOOTTIME − CLOCK_MONOTONIC at the previous look.
    private var bootOffset: Int64
    /// The looking thread's wait for a CPU at the previous look (nil: unknown, then nothing is
    /// taken off a late look).
    private var runQueueWait: UInt64?

    init(monotonic: UInt64, boot: UInt64, runQueueWait: UInt64? = nil) {
        bootOffset = Int64(bitPattern: boot &- monotonic)
        self.runQueueWait = runQueueWait
    }

    /// What a look made at `monotonic` (CLOCK_BOOTTIME `boot`; the looking thread's wait for a CPU
    /// so far `runQueueWait`) that was due at `due` saw: how late it was, and the span the pause may
    /// have covered — from `since`, the earliest it could have begun (the previous look, or `due`
    /// when the time before it is accounted for otherwise). Time spent waiting for a CPU is taken off both.
    mutating func look(monotonic: UInt64, boot: UInt64, runQueueWait: UInt64?, due: UInt64, since: UInt64) -> Pause {
        let newOffset = Int64(bitPattern: boot &- monotonic)
        let suspended = UInt64(max(0, newOffset - bootOffset))
        bootOffset = newOffset
        var waitedForCPU: UInt64 = 0
        if let runQueueWait, let previous = self.runQueueWait {
            waitedForCPU = runQueueWait.saturatingSubtract(previous)
        }
        self.runQueueWait = runQueueWait
        let span = monotonic.saturatingSubtract(min(since, due))
        return Pause(
            lateness: max(monotonic.saturatingSubtract(due).saturatingSubtract(waitedForCPU), suspended),
            span: max(span.saturatingSubtract(waitedForCPU), suspended), waitedForCPU: min(waitedForCPU, span))
    }
}

/// A look's view of a pause of the process before it (``PauseDetector``).
struct Pause: Equatable {
    /// How much later than due the look came, less the time its thread waited for a CPU (or how
    /// long the machine was suspended).
    var lateness: UInt64
    /// How much time the pause may have taken: all of it excused when there was a pause.
    var span: UInt64
    /// How long the looking thread waited for a CPU meanwhile (within the span).
    var waitedForCPU: UInt64 = 0

    static let none = Pause(lateness: 0, span: 0)

    /// The time to excuse, when the look was later than `tolerance` (a late timer is not a pause):
    /// the span as a pause, and the wait for a CPU for the busy periods whose threads waited for one.
    func excused(tolerance: UInt64) -> Excuse {
        if lateness > tolerance { return Excuse(paused: span, waitedForCPU: waitedForCPU) }
        if lateness + waitedForCPU > tolerance { return Excuse(waitedForCPU: span + waitedForCPU) }
        return .none
    }
}

/// What a look excuses from the busy periods it times (``Pause/excused(tolerance:)``).
struct Excuse: Equatable {
    /// The process could not run: excused from every busy period.
    var paused: UInt64 = 0
    /// Every CPU was busy: excused only from a busy period whose thread was runnable, waiting for a
    /// CPU too (not asleep in a wait, not a starved pool's).
    var waitedForCPU: UInt64 = 0

    static let none = Excuse()
}
