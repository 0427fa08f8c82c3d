/// A thread that stamps its own busy periods (``Heartbeat``): busy from its stamp, timed exactly
/// whenever a look finds it; nothing to send, nothing to time between looks.
final class HeartbeatObserver: TargetObserver {
    private let heartbeat: Heartbeat

    /// Keeps `heartbeat`'s busy periods from `samplingAge` on as they end: a look that missed one
    /// still times it (``endedJobs(now:)``).
    init(_ heartbeat: Heartbeat, samplingAge: UInt64) {
        self.heartbeat = heartbeat
        heartbeat.keepBusyPeriods(longerThan: samplingAge)
    }

    func busyPeriod(now: UInt64) -> BusyPeriod? {
        heartbeat.currentBusySince.map { BusyPeriod(since: $0, thread: heartbeat.threadID) }
    }

    var lastBusyEnd: UInt64? { heartbeat.lastBusyEnd }

    var watchedThread: Int32? { heartbeat.threadID }

    /// The long busy periods that ended since the previous call, as the heartbeat kept them: one no
    /// look saw (its watchdog's thread was recording the stall before: a 183 ms sleep on an event
    /// loop missed in a 30-minute soak, 2026-12-07) is timed from them.
    func endedJobs(now: UInt64) -> [EndedJob] {
        heartbeat.takeKeptBusyPeriods().map { EndedJob(thread: heartbeat.threadID, since: $0.since, end: $0.end) }
    }

    /// A busy heartbeat is work, and a busy period for the loop's thread to time; so is a long one
    /// that ended unseen.
    func restingLook(now: UInt64) -> RestingLook {
        heartbeat.currentBusySince == nil && !heartbeat.hasKeptBusyPeriods
            ? .nothing : RestingLook(sawWork: true, needsTheLoop: true)
    }
}
