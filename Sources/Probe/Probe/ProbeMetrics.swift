/// The histogram buckets that suit Probe's metrics, for backends that take buckets per metric
/// name (swift-metrics itself carries none): with swift-prometheus,
///
///     let factory = PrometheusMetricsFactory(registry: registry)
///     factory.durationHistogramBuckets = ProbeMetrics.durationHistogramBuckets(threshold: .milliseconds(100))
///
/// Without them a backend's default buckets apply (swift-prometheus's: 5 ms to 10 s), so stalls fall in
/// the few buckets above the threshold and quantiles read from them are coarse (README.md#metrics).
public enum ProbeMetrics {
    /// `probe_loop_lag_seconds`: 50 µs, 100 µs, 200 µs, … doubling up to 13.1 s (19 bounds). A
    /// healthy event loop answers a ping within tens of microseconds; a stall is hundreds of
    /// milliseconds: ×2 steps keep both ends readable with few series.
    public static let loopLagBuckets: [Duration] = (0..<19).map { .microseconds(50 << $0) }

    /// `probe_stall_duration_seconds`: the threshold, then ×1.25 steps up to 60 s. Every stall
    /// lasts at least the threshold, so buckets below it would stay empty; a quarter apart, a
    /// quantile read from them is within 25% of the truth.
    public static func stallDurationBuckets(threshold: Duration) -> [Duration] {
        let start = max(threshold, .milliseconds(1))
        var bounds: [Duration] = []
        var bound = start
        while bound < .seconds(60) {
            bounds.append(bound)
            bound = bound * 1.25
        }
        bounds.append(.seconds(60))
        return bounds
    }

    /// Both, by metric name: for swift-prometheus's `durationHistogramBuckets`. Watchdogs with
    /// different thresholds share the metric: give the smallest.
    public static func durationHistogramBuckets(threshold: Duration) -> [String: [Duration]] {
        [
            StallOutlets.MetricName.stallDuration: stallDurationBuckets(threshold: threshold),
            LoopLag.MetricName.lag: loopLagBuckets,
        ]
    }
}
