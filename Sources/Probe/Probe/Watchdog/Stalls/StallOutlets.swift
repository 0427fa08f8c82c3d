import Foundation
import Logging
import Metrics
import ProbeRecords
import PerfkitPprof
import Synchronization

/// Where finished stall records go: the callback, a JSON-lines file, swift-log and swift-metrics.
final class StallOutlets: Sendable {
    let configuration: WatchdogConfiguration
    /// Called for each record the JSON-lines file did not take (``Watchdog/unwrittenRecords``).
    let onWriteFailure: (@Sendable () -> Void)?
    private let factory: (any MetricsFactory)?
    private let culprits: StallCulprits
    private let dropped: Counter?
    /// The first failed write is logged with its reason; later ones are only counted.
    private let loggedAFailure = Atomic<Bool>(false)

    /// The names and labels of the metrics below, listed with their units in Probe's README.
    enum MetricName {
        static let stalls = "probe_stalls_total"
        static let stallDuration = "probe_stall_duration_seconds"
        static let droppedRecords = "probe_stall_records_dropped_total"
        static let excused = "probe_stalls_excused_total"
    }

    init(configuration: WatchdogConfiguration, onWriteFailure: (@Sendable () -> Void)? = nil) {
        self.configuration = configuration
        self.onWriteFailure = onWriteFailure
        culprits = StallCulprits(limit: configuration.metricsCulpritLimit)
        if configuration.metrics {
            let factory = configuration.metricsFactory ?? MetricsSystem.factory
            self.factory = factory
            dropped = Counter(
                label: MetricName.droppedRecords, dimensions: [("watchdog", configuration.name)], factory: factory)
        } else {
            factory = nil
            dropped = nil
        }
    }

    /// A stall reported early as ongoing (`reportOngoingAfter`) is counted at that report
    /// (`counted`) and timed at its last one (`early` false): once each.
    func deliver(_ record: StallRecord, counted: Bool = true, early: Bool = false) {
        if let factory {
            // Per stall, not per ping: a handler per call costs nothing that matters here.
            let watchdog = ("watchdog", configuration.name)
            let kind = ("class", record.classification.rawValue)
            if counted {
                let culprit = ("culprit", culprits.label(groupKey: record.groupKey))
                Counter(label: MetricName.stalls, dimensions: [watchdog, kind, culprit], factory: factory).increment()
            }
            if !early {
                Metrics.Timer(label: MetricName.stallDuration, dimensions: [watchdog, kind], factory: factory)
                    .recordNanoseconds(Int64(record.durationNanoseconds))
            }
        }
        if let logger = configuration.logger { log(record, to: logger) }
        if let path = configuration.jsonLinesPath, let problem = JSONLines.append(record, to: path) {
            failedToWrite("a stall record could not be appended to \(path): \(problem)")
        }
        if !early, let directory = configuration.pprofDirectory, let problem = writeProfile(of: record, in: directory) {
            failedToWrite("a stall profile could not be written in \(directory): \(problem)")
        }
        configuration.onStall?(record)
    }

    /// A busy period of `duration` ns that lasted the threshold but is no stall: `excused` ns of it
    /// the process was paused (`paused`) or its thread waited for a CPU. Logged (notice) and counted
    /// in `probe_stalls_excused_total` (`watchdog`, `reason`: `paused` or `cpu-wait`).
    func deliverExcused(thread: Int32?, duration: UInt64, excused: UInt64, paused: Bool, threshold: UInt64) {
        let reason = paused ? "paused" : "cpu-wait"
        if let factory {
            Counter(
                label: MetricName.excused, dimensions: [("watchdog", configuration.name), ("reason", reason)],
                factory: factory
            ).increment()
        }
        guard let logger = configuration.logger else { return }
        func ms(_ nanoseconds: UInt64) -> Int { Int((Double(nanoseconds) / 1e6).rounded()) }
        let why = paused ? "the process was paused" : "its thread waited for a CPU"
        logger.notice(
            "busy period of \(ms(duration)) ms on \(configuration.name) not reported as a stall: \(ms(excused)) ms of it excused (\(why)), \(ms(duration - excused)) ms left under the \(ms(threshold)) ms threshold",
            metadata: [
                "probe.watchdog": .string(configuration.name),
                "probe.thread": .string(thread.map(String.init) ?? "none"),
                "probe.duration_ms": .stringConvertible(ms(duration)),
                "probe.excused_ms": .stringConvertible(ms(excused)),
                "probe.reason": .string(reason),
            ])
    }

    private func failedToWrite(_ what: String) {
        onWriteFailure?()
        dropped?.increment()
        if !loggedAFailure.exchange(true, ordering: .relaxed) {
            configuration.logger?.error(
                "watchdog \"\(configuration.name)\": \(what); later failures are counted in \(MetricName.droppedRecords) and Watchdog.unwrittenRecords"
            )
        }
    }

    /// Why files cannot be created in `directory`, or nil when they can: a file made and removed.
    static func cannotWriteFiles(in directory: String) -> String? {
        let path = directory + "/.probe-write-check-\(getpid())"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        close(fd)
        unlink(path)
        return nil
    }

    private let profilesWritten = Atomic<Int>(0)

    /// The record's pprof profile as `stall-<watchdog>-<start>-<pid>-<n>.pb`, written atomically
    /// (`AtomicFile`: a hidden temporary file, flushed, renamed into place). Returns why it
    /// failed, or nil.
    private func writeProfile(of record: StallRecord, in directory: String) -> String? {
        guard record.callTree != nil else { return nil }  // no sample answered: nothing to profile
        let profile = StallProfile.profile(
            [(1, record)],
            comment:
                "Probe watchdog \(configuration.name): a stall of \(Int((record.durationNanoseconds / 1e6).rounded())) ms on thread \(record.threadID), \(record.classification.rawValue)"
        )
        let data = profile.encoded()
        let number = profilesWritten.add(1, ordering: .relaxed).newValue
        let name = "stall-\(Self.fileSafe(configuration.name))-\(Self.fileStamp(record.start))-\(getpid())-\(number).pb"
        do {
            try AtomicFile.write(data, to: URL(fileURLWithPath: "\(directory)/\(name)"))
        } catch let error as AtomicFile.WriteError {
            return error.problem
        } catch {
            return "\(error)"
        }
        return nil
    }

    /// Letters, digits, `-` and `_`; anything else becomes `_`.
    static func fileSafe(_ name: String) -> String {
        String(
            name.unicodeScalars.map {
                CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" ? Character($0) : "_"
            })
    }

    /// `20261125T170102.123Z`: sorts by time, no `:` (awkward in file names on some systems).
    static func fileStamp(_ date: Date) -> String {
        let milliseconds = Int((date.timeIntervalSince1970 * 1000).rounded(.down))
        var time = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(
            format: "%04d%02d%02dT%02d%02d%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), milliseconds % 1000)
    }

    private func log(_ record: StallRecord, to logger: Logger) {
        let milliseconds = Int((record.durationNanoseconds / 1e6).rounded())
        var metadata: Logger.Metadata = [
            "probe.watchdog": .string(record.watchdog),
            "probe.thread": .stringConvertible(record.threadID),
            "probe.duration_ms": .stringConvertible(milliseconds),
            "probe.class": .string(record.classification.rawValue),
            "probe.samples": .stringConvertible(record.sampleCount),
            "probe.group": .string(record.groupKey),
        ]
        metadata["probe.top"] = .array(record.topStack.prefix(8).map { .string(StallOutlets.describe($0)) })
        if let asyncCallers = record.asyncCallers, AsyncChains.firstToSayUnavailable() {
            logger.warning("stall stacks have no async callers: \(asyncCallers)")
        }
        logger.warning(
            "stall of \(milliseconds) ms on \(record.watchdog) (\(record.classification.rawValue))\(record.ongoing ? ", ongoing" : "")",
            metadata: metadata)
    }

    static func describe(_ frame: StackFrame) -> String {
        if let symbol = frame.symbol { return (frame.async == true ? "[async] " : "") + symbol }
        let module = frame.module.map { ($0 as NSString).lastPathComponent } ?? "?"
        return "\(module)+0x\(String(frame.moduleOffset ?? frame.address, radix: 16))"
    }
}
