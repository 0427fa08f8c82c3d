/// A thread that stamps its own busy periods (``Heartbeat``): busy from its stamp, timed exactly
/// whenever a look finds it; nothing to send, nothing to time between looks.
final class HeartbeatObserver: TargetObserver {
    private let heartbeat: Heartbeat

    init(_ heartbeat: Heartbeat) {
        self.heartbeat = heartbeat
    }

    func busyPeriod(now: UInt64) -> BusyPeriod? {
        heartbeat.currentBusySince.map { BusyPeriod(since: $0, thread: heartbeat.threadID) }
    }

    var lastBusyEnd: UInt64? { heartbeat.lastBusyEnd }

    /// A busy heartbeat is work, and a busy period for the loop's thread to time.
    func restingLook(now: UInt64) -> RestingLook {
        heartbeat.currentBusySince == nil ? .nothing : RestingLook(sawWork: true, needsTheLoop: true)
    }
}
