/// A watchdog loop's intervals, derived once from its configuration by the rules below (as
/// `Duration`s) and kept as CLOCK_MONOTONIC nanoseconds, the unit of every stamp a look compares
/// them with: a look does integer arithmetic only.
struct WatchdogIntervals: Equatable {
    /// The shortest threshold and sample interval the loop works with, whatever is configured.
    static let shortestThreshold: Duration = .milliseconds(1)
    static let shortestSampleInterval: Duration = .microseconds(100)
    /// Between stalls the loop's thread looks every quarter threshold, within these bounds (it only
    /// looks for busy periods then: samples have their own schedule).
    static let shortestTick: Duration = .milliseconds(2)
    static let longestTick: Duration = .milliseconds(50)
    /// A pinged target is pinged every quarter threshold, at most this often.
    static let shortestPingInterval: Duration = .milliseconds(2)
    /// A look later than half the threshold, and at least this late, means the process was paused.
    static let shortestPauseTolerance: Duration = .milliseconds(50)
    /// While the pool's jobs are timed and a pool thread is free, the pool is pinged at most this
    /// often: only work outside Swift concurrency holding its threads is left for the pings to find.
    static let poolPingIntervalWithFreeThreads: Duration = .seconds(10)

    /// A busy period longer than this is a stall; sampled from half of it.
    let threshold: UInt64
    let sampleInterval: UInt64
    /// Between the looks of the loop's own thread while no sample is due.
    let tick: UInt64
    let pingInterval: UInt64
    let pauseTolerance: UInt64
    let poolPingIntervalWithFreeThreads: UInt64
    /// `WatchdogConfiguration.reportOngoingAfter`.
    let reportOngoingAfter: UInt64?
    /// The resting clock's looks while the loop is parked.
    let resting: RestingLookSchedule

    init(_ configuration: WatchdogConfiguration) {
        let threshold = max(Self.shortestThreshold, configuration.threshold)
        let tick = min(Self.longestTick, max(Self.shortestTick, threshold / 4))
        self.threshold = threshold.nanoseconds
        sampleInterval = max(Self.shortestSampleInterval, configuration.sampleInterval).nanoseconds
        self.tick = tick.nanoseconds
        pingInterval = max(Self.shortestPingInterval, threshold / 4).nanoseconds
        pauseTolerance = max(Self.shortestPauseTolerance, threshold / 2).nanoseconds
        poolPingIntervalWithFreeThreads = max(Self.poolPingIntervalWithFreeThreads, threshold / 4).nanoseconds
        reportOngoingAfter = configuration.reportOngoingAfter?.nanoseconds
        resting = RestingLookSchedule(threshold: threshold, tick: tick, configured: configuration.restingLookInterval)
    }

    /// Half the threshold: a busy period is sampled from this age on, and a pool job this old
    /// becomes an episode of its own.
    var samplingAge: UInt64 { threshold / 2 }
}
