import Metrics

/// How late a watched target runs what it is given, healthy or not: each ping's time from being
/// posted to running, through swift-metrics, so that every replica's loops can be graphed and
/// alerted on before they cross the stall threshold (`histogram_quantile` over
/// `probe_loop_lag_seconds_bucket`).
///
/// An event loop found idle in its `epoll_wait` is not pinged (each ping would wake it; see
/// `PingObserver`): such a look counts as a lag of 0, since work given to it then
/// runs at once. Queues and the cooperative pool are timed by their pings only (the pool, while
/// its jobs are timed, is pinged only when every thread is busy and every 10 s).
///
/// Recorded on the watchdog's (or the resting clock's) thread, never on the target's: the target
/// pays only for the ping it runs. Used by one thread at a time (the loop's, or the clock's while
/// the loop is parked).
@_spi(Benchmarks) public final class LoopLag {
    enum MetricName {
        static let lag = "probe_loop_lag_seconds"
        static let maxLag = "probe_loop_lag_max_seconds"
    }

    /// The gauge holds the largest lag of the current and the previous window: a scrape every
    /// 15 s or less sees every window's maximum at least once.
    static let window: UInt64 = 10_000_000_000

    private let lag: Metrics.Timer
    private let maxLag: Gauge
    private var windowStart: UInt64 = 0
    private var currentMax: UInt64 = 0
    private var previousMax: UInt64 = 0
    private var published: UInt64 = .max

    public init(watchdog: String, factory: any MetricsFactory) {
        let dimensions = [("watchdog", watchdog)]
        lag = Metrics.Timer(label: MetricName.lag, dimensions: dimensions, factory: factory)
        maxLag = Gauge(label: MetricName.maxLag, dimensions: dimensions, factory: factory)
    }

    /// One ping that ran `nanoseconds` after it was posted, seen at `now`.
    public func record(_ nanoseconds: UInt64, now: UInt64) {
        lag.recordNanoseconds(Int64(min(nanoseconds, UInt64(Int64.max))))
        if now.saturatingSubtract(windowStart) >= Self.window {
            previousMax = now.saturatingSubtract(windowStart) < 2 * Self.window ? currentMax : 0
            currentMax = 0
            windowStart = now
        }
        currentMax = max(currentMax, nanoseconds)
        let shown = max(currentMax, previousMax)
        if shown != published {
            published = shown
            maxLag.record(Double(shown) / 1e9)
        }
    }
}
