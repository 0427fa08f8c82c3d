import Foundation
import Logging
import Metrics
import Synchronization

/// Where memory warnings and the previous exit go: the callback, async streams, a JSON-lines file,
/// swift-log and swift-metrics — the outlets stalls have.
final class MemoryOutlets: Sendable {
    enum MetricName {
        static let warnings = "probe_memory_warnings_total"
        static let usage = "probe_memory_usage_bytes"
        static let limit = "probe_memory_limit_bytes"
        static let rss = "probe_memory_rss_bytes"
        static let previousExit = "probe_previous_exit_total"
        static let droppedRecords = "probe_memory_records_dropped_total"
    }

    let configuration: MemoryWatchConfiguration
    private let factory: (any MetricsFactory)?
    private let usage: Gauge?
    /// Made at the first limit seen: a process without one has no `probe_memory_limit_bytes` series
    /// (a gauge made up front reads 0, which would say "a limit of 0 bytes").
    private let limit = Mutex<Gauge?>(nil)
    private let rssAnon: Gauge?
    private let rssFile: Gauge?
    private let dropped: Counter?
    private let streams = Mutex<[Int: AsyncStream<MemoryWarning>.Continuation]>([:])
    private let nextStream = Atomic<Int>(0)
    let unwritten = Atomic<Int>(0)
    private let loggedAFailure = Atomic<Bool>(false)

    init(configuration: MemoryWatchConfiguration) {
        self.configuration = configuration
        if configuration.metrics {
            let factory = configuration.metricsFactory ?? MetricsSystem.factory
            let watch = [("watch", configuration.name)]
            self.factory = factory
            usage = Gauge(label: MetricName.usage, dimensions: watch, factory: factory)
            rssAnon = Gauge(label: MetricName.rss, dimensions: watch + [("kind", "anon")], factory: factory)
            rssFile = Gauge(label: MetricName.rss, dimensions: watch + [("kind", "file")], factory: factory)
            dropped = Counter(label: MetricName.droppedRecords, dimensions: watch, factory: factory)
        } else {
            (factory, usage, rssAnon, rssFile, dropped) = (nil, nil, nil, nil, nil)
        }
    }

    func gauges(_ memory: MemorySnapshot) {
        if let value = memory.usageBytes { usage?.record(Int64(clamping: value)) }
        if let value = memory.limitBytes, let factory {
            limit.withLock { gauge in
                if gauge == nil {
                    gauge = Gauge(
                        label: MetricName.limit, dimensions: [("watch", configuration.name)], factory: factory)
                }
                gauge?.record(Int64(clamping: value))
            }
        }
        if let value = memory.rssAnonBytes { rssAnon?.record(Int64(clamping: value)) }
        if let value = memory.rssFileBytes { rssFile?.record(Int64(clamping: value)) }
    }

    func deliver(_ warning: MemoryWarning) {
        if let factory {
            Counter(
                label: MetricName.warnings,
                dimensions: [("watch", configuration.name), ("reason", warning.reason.rawValue)], factory: factory
            ).increment()
        }
        configuration.logger?.warning(
            "memory warning (\(warning.reason.rawValue)): \(warning.message)",
            metadata: ["probe.watch": .string(warning.watch), "probe.reason": .string(warning.reason.rawValue)])
        append(warning)
        for continuation in streams.withLock({ Array($0.values) }) { continuation.yield(warning) }
        configuration.onWarning?(warning)
    }

    /// The heap profile a delivered warning named could not be written: said in the log (the record
    /// is already out).
    func heapProfileNotWritten(_ path: String, for warning: MemoryWarning, problem: String) {
        configuration.logger?.error(
            "memory watch \"\(configuration.name)\": the heap profile its \(warning.reason.rawValue) warning names was not written to \(path): \(problem)"
        )
    }

    func deliver(_ exit: PreviousExit) {
        if let factory {
            Counter(label: MetricName.previousExit, dimensions: [("reason", exit.reason.rawValue)], factory: factory)
                .increment()
        }
        let level: Logger.Level = exit.reason == .clean ? .info : .warning
        configuration.logger?.log(
            level: level,
            "previous instance (pid \(exit.pid)) ended: \(exit.reason.rawValue) (\(exit.confidence.rawValue)): \(exit.evidence.joined(separator: "; "))",
            metadata: ["probe.previous_exit": .string(exit.reason.rawValue)])
        append(exit)
    }

    /// A new stream of warnings, finished when the watch stops.
    func stream() -> AsyncStream<MemoryWarning> {
        let id = nextStream.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream.makeStream(
            of: MemoryWarning.self, bufferingPolicy: .bufferingNewest(64))
        continuation.onTermination = { [weak self] _ in _ = self?.streams.withLock { $0.removeValue(forKey: id) } }
        streams.withLock { $0[id] = continuation }
        return stream
    }

    func finishStreams() {
        for continuation in streams.withLock({ all in
            defer { all = [:] }
            return Array(all.values)
        }) {
            continuation.finish()
        }
    }

    private func append(_ record: some Encodable) {
        guard let path = configuration.jsonLinesPath else { return }
        let problem = JSONLines.append(record, to: path)
        guard let problem else { return }
        unwritten.add(1, ordering: .relaxed)
        dropped?.increment()
        if !loggedAFailure.exchange(true, ordering: .relaxed) {
            configuration.logger?.error(
                "memory watch \"\(configuration.name)\": a record could not be appended to \(path): \(problem); later failures are counted in \(MetricName.droppedRecords) and MemoryWatch.unwrittenRecords"
            )
        }
    }
}
