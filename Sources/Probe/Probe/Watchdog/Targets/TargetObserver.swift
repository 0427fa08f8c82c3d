/// How a watchdog's loop sees the target it watches: one conformer per kind of target —
/// ``HeartbeatObserver``, ``PingObserver`` (queues, executors), ``PoolJobsObserver`` (the
/// cooperative pool). The loop decides what is a stall; an observer says what the target is doing.
/// Touched only by the thread that owns the loop (see `WatchdogLoop.ownership`).
protocol TargetObserver: AnyObject {
    /// Sets up, before the loop's thread runs, what watching needs; returns what cannot be seen here.
    func prepare() -> [String]
    /// Undoes ``prepare()`` as the loop's thread ends.
    func finish()
    /// Before the loop's first look (the first ping out).
    func begin(now: UInt64)
    /// True while something is timed between looks (a ping out): the loop cannot rest.
    var isTiming: Bool { get }
    /// The target's busy period now, if it is busy. Called at each look of the loop's own thread,
    /// which it may use to post the next ping.
    func busyPeriod(now: UInt64) -> BusyPeriod?
    /// When the target's latest busy period ended, as the target recorded it (nil: unknown).
    var lastBusyEnd: UInt64? { get }
    /// Threads each inside one job for at least `WatchdogIntervals.samplingAge`, besides the
    /// target's own busy period (the pool's long jobs): each is an episode of its own.
    func longJobs(now: UInt64) -> [BusyPeriod]
    /// When `thread` last ended a job, as recorded (nil: unknown).
    func lastJobEnd(of thread: Int32) -> UInt64?
    /// When the busy period that began at `since` ended, when the target recorded that one's end
    /// (a collected ping's arrival); nil: unknown, or a later period's.
    func busyEnd(of since: UInt64) -> UInt64?
    /// Long jobs (at least `WatchdogIntervals.samplingAge`) that ended since the previous call, each
    /// thread's latest: a look that came after one ended can still time it.
    func endedJobs(now: UInt64) -> [EndedJob]
    /// Whether `jobs` held every thread of the target at once (a starved pool), and when.
    func starvation(among jobs: [EndedJob]) -> EndedStarvation?
    /// Adds one sample of the stalled target to `episode`, its busy period's.
    func sample(_ episode: inout StallEpisode, with reader: any StalledThreadReader, now: UInt64, limit: Int)
    /// The resting clock's look while the loop is parked.
    func restingLook(now: UInt64) -> RestingLook
    /// The one thread whose busy periods are the target's, when known (a heartbeat's, the thread
    /// that ran the latest ping); nil for the pool.
    var watchedThread: Int32? { get }
}

extension TargetObserver {
    func prepare() -> [String] { [] }
    func finish() {}
    func begin(now: UInt64) {}
    var isTiming: Bool { false }
    func longJobs(now: UInt64) -> [BusyPeriod] { [] }
    func lastJobEnd(of thread: Int32) -> UInt64? { nil }
    func busyEnd(of since: UInt64) -> UInt64? { nil }
    func endedJobs(now: UInt64) -> [EndedJob] { [] }
    func starvation(among jobs: [EndedJob]) -> EndedStarvation? { nil }
    var watchedThread: Int32? { nil }

    func sample(_ episode: inout StallEpisode, with reader: any StalledThreadReader, now: UInt64, limit: Int) {
        episode.sampleItsThread(with: reader, now: now, limit: limit)
    }
}

/// The latest busy period a collected ping ended: when it began and when the ping ran.
struct CollectedBusyPeriod: Equatable {
    var since: UInt64
    var arrived: UInt64

    /// Its end when it is the period that began at `start` (``TargetObserver/busyEnd(of:)``).
    func end(of start: UInt64) -> UInt64? { since == start ? arrived : nil }
}

/// A busy period of the target, or of one of its threads.
struct BusyPeriod: Equatable {
    /// When it began (CLOCK_MONOTONIC ns).
    var since: UInt64
    /// The thread to sample, nil when none is known (a queue nobody drains, a starved pool).
    var thread: Int32?
    /// The whole cooperative pool is held: every pool thread is sampled.
    var isPoolStarvation = false
}

/// A long job of one thread that has ended, as the target timed it.
struct EndedJob: Equatable {
    var thread: Int32
    var since: UInt64
    var end: UInt64
}

/// Every pool thread inside a long job at once, from `since` to `end`, told after the jobs ended.
struct EndedStarvation: Equatable {
    var since: UInt64
    var end: UInt64
    var threads: [PoolThread]
}

/// What the resting clock's look at a parked loop's target found.
struct RestingLook: Equatable {
    /// The target was seen working: the looks stay frequent for a while (``RestingLookSchedule``).
    var sawWork = false
    /// There is something to time or a ping to send: the loop's own thread takes over.
    var needsTheLoop = false

    static let nothing = RestingLook()
}
