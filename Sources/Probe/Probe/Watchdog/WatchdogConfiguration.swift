import CProbe
import Foundation
import Logging
import Metrics
import ProbeRecords

/// How a ``Watchdog`` watches, samples and reports.
public struct WatchdogConfiguration: Sendable {
    /// Names the watchdog in reports, log metadata and metric dimensions.
    public var name: String
    /// A stall is a busy period longer than this. Default 400 ms; works down to about 20 ms (with
    /// a `sampleInterval` no longer than it: `start()` refuses a threshold below the interval).
    public var threshold: Duration = .milliseconds(400)
    /// Time between stack samples while a stall lasts; sampling starts at half the threshold.
    /// At the default 1 ms a 600 ms stall gives a profile of several hundred samples: one sample
    /// costs the stalled thread about a microsecond in the signal handler (frame records; see
    /// the README for the measured cost), and `samplingBudget` caps it.
    public var sampleInterval: Duration = .milliseconds(1)
    /// Most samples per stall (per thread for a pool starvation); later samples are not taken.
    /// Memory stays bounded either way: samples are aggregated into distinct stacks as they come.
    public var maxSamplesPerStall: Int = 5000
    /// Largest share of the stalled thread's time its samples' signal handler may take (measured
    /// in the handler): a sample that would exceed it is skipped. Default 1%.
    public var samplingBudget: Double = 0.01
    /// How long the watchdog waits for the signal handler's answer before recording "no answer".
    public var answerTimeout: Duration = .milliseconds(50)
    /// How many recent stalls ``Watchdog/recentStalls`` keeps.
    public var recentStallCapacity: Int = 32
    /// Nil (default): a stall is reported once, when it ends, with its whole duration however long
    /// it lasted (its profile covers at most `maxSamplesPerStall` samples; `sampledNanoseconds`
    /// says how much), or with `ongoing: true` when the watchdog stops during it. Set, for stalls
    /// that may never end (a deadlock): a stall still going on after this long is reported then
    /// too, with `ongoing: true` and the same `start`, and counted once in `probe_stalls_total`;
    /// its final record follows when it ends.
    public var reportOngoingAfter: Duration?
    /// How often a target with nothing going on is looked at (one thread, `RestingClock`, looks at every
    /// resting watchdog; a look is a thread wake-up). Nil (default): every half threshold (at most 250 ms)
    /// while the target was seen working in the last 2 s, else every threshold (at most 500 ms): an idle
    /// server at a 100 ms threshold pays under 0.1% of a core. Set: this interval always. A pinged
    /// target's stall (event loop, queue) is timed from the first look that finds it busy: recorded up to
    /// one interval short, and one shorter than threshold + interval may be missed (by default every stall
    /// of 1.5× the threshold is caught, the first after 2 s idle from twice the threshold). Heartbeats and
    /// pool jobs stamp their own start (docs/probe-in-a-server.md#what-really-stalls-a-swift-server-and-what-watching-costs-at-rest).
    public var restingLookInterval: Duration?
    /// The real-time signal used to ask the watched thread for its stack. Default `SIGRTMIN + 7`,
    /// or the `PROBE_SIGNAL` environment variable (`SIGRTMIN+N` or a number). See README.
    public var signal: Int32 = WatchdogConfiguration.defaultSignal
    /// False (default): a thread asleep in nanosleep, poll, epoll_wait, … is not signalled, since
    /// the signal would end its sleep early with EINTR; the sample records the syscall instead of
    /// a stack. True: take the stack anyway and accept the early wake-up.
    public var interruptSleepingSyscalls: Bool = false
    /// Called on the watchdog's thread for each stall. Must not call `stop()` synchronously.
    public var onStall: (@Sendable (StallRecord) -> Void)?
    /// Appends each stall as one JSON object per line to this file.
    public var jsonLinesPath: String?
    /// Writes each stall's profile here as a pprof file (`profile.proto`, not compressed: pprof and
    /// fleet profilers read it as it is), named `stall-<watchdog>-<start>-<pid>-<n>.pb` and put in
    /// place by a rename, so a collector that uploads the directory's files never reads half of
    /// one. A stall reported early (`reportOngoingAfter`) is written at its end only. The same
    /// profile as `perfkit stalls --format pprof` makes of its record.
    public var pprofDirectory: String?
    /// Logs a warning per stall with the top frames as metadata.
    public var logger: Logger?
    /// Reports through swift-metrics: `probe_stalls_total` (counter; dimensions `watchdog`, `class`,
    /// `culprit`), `probe_stall_duration_seconds` (timer; `watchdog`, `class`),
    /// `probe_stall_records_dropped_total` (counter; `watchdog`), `probe_stalls_excused_total`
    /// (counter; `watchdog`, `reason`), and for pinged targets the loop
    /// lag: `probe_loop_lag_seconds` (timer) and `probe_loop_lag_max_seconds` (gauge), dimension
    /// `watchdog`. Bucket boundaries for Prometheus: ``ProbeMetrics``.
    public var metrics: Bool = true
    /// How many distinct culprits (the innermost function of the service's code in a stall's
    /// dominant stack) a watchdog names in `probe_stalls_total`'s `culprit` dimension; later
    /// ones are counted as `other`, so the number of series stays bounded. Default 20.
    public var metricsCulpritLimit: Int = 20
    /// The metrics backend; nil uses the one bootstrapped with `MetricsSystem`.
    public var metricsFactory: (any MetricsFactory)?

    public init(name: String, threshold: Duration = .milliseconds(400)) {
        self.name = name
        self.threshold = threshold
    }

    /// Why this configuration cannot be used, or nil when it can. A threshold below the sample
    /// interval would end most stalls before their first sample.
    var problem: String? {
        if threshold <= .zero { return "the threshold must be positive (it is \(threshold))" }
        if sampleInterval <= .zero { return "the sample interval must be positive (it is \(sampleInterval))" }
        if threshold < sampleInterval {
            return
                "the threshold (\(threshold)) is below the sample interval (\(sampleInterval)): raise the threshold or lower sampleInterval"
        }
        if maxSamplesPerStall < 1 { return "maxSamplesPerStall must be at least 1 (it is \(maxSamplesPerStall))" }
        if let interval = restingLookInterval, interval <= .zero {
            return "restingLookInterval must be positive (it is \(interval))"
        }
        if !(samplingBudget > 0 && samplingBudget <= 1) {
            return "samplingBudget must be above 0 and at most 1 (it is \(samplingBudget))"
        }
        return nil
    }

    /// `SIGRTMIN + 7`, unless `PROBE_SIGNAL` says otherwise.
    public static var defaultSignal: Int32 {
        if let text = ProcessInfo.processInfo.environment["PROBE_SIGNAL"], let signal = parseSignal(text) {
            return signal
        }
        return cprobe_sigrtmin() + 7
    }

    /// Parses "SIGRTMIN+N", "RTMIN+N" or a plain signal number; nil when out of the real-time range.
    public static func parseSignal(_ text: String) -> Int32? {
        let trimmed = text.uppercased().replacingOccurrences(of: " ", with: "")
        let value: Int32?
        if let plus = trimmed.firstIndex(of: "+"), trimmed.hasPrefix("SIGRTMIN") || trimmed.hasPrefix("RTMIN") {
            value = Int32(trimmed[trimmed.index(after: plus)...]).map { cprobe_sigrtmin() + $0 }
        } else if trimmed == "SIGRTMIN" || trimmed == "RTMIN" {
            value = cprobe_sigrtmin()
        } else {
            value = Int32(trimmed)
        }
        guard let value, value >= cprobe_sigrtmin(), value <= cprobe_sigrtmax() else { return nil }
        return value
    }
}

extension Duration {
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
