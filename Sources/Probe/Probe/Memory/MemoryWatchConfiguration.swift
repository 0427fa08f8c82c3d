import Foundation
import Logging
import Metrics

/// How a ``MemoryWatch`` watches the process's memory and reports.
public struct MemoryWatchConfiguration: Sendable {
    /// Names the watch in records, log lines and metric dimensions.
    public var name: String = "memory"
    /// A pressure warning: tasks of the cgroup (or the machine, without a cgroup v2 pressure file)
    /// stalled on memory for at least `pressureStall` within `pressureWindow` — a PSI trigger the
    /// kernel checks, so nothing is polled for it. Default 200 ms in 2 s (10% of the time). The
    /// window must be 500 ms to 10 s, and a whole number of 2 s for a process without
    /// CAP_SYS_RESOURCE (kernel 6.5 on; containers and this project's machine drop that capability
    /// even for root): a window the kernel refuses for that reason is rounded up to the next 2 s,
    /// the stall scaled with it, and `limitations` says so.
    public var pressureStall: Duration = .milliseconds(200)
    public var pressureWindow: Duration = .seconds(2)
    /// A near-limit warning when the cgroup's usage crosses this share of its limit (once per
    /// crossing: warned again after usage fell 5 points below). Default 0.9.
    public var nearLimitFraction: Double = 0.9
    /// How often usage, limit, the cgroup's event counters and the process's RSS are read, and the
    /// breadcrumb brought up to date. Default 1 s: one wake-up a second (tens of µs of CPU each).
    public var checkInterval: Duration = .seconds(1)
    /// A file that tells the next instance how this one ended (see ``PreviousExit``). Nil: none.
    /// It must survive a restart of the service: a volume of the container, not its own /tmp.
    public var breadcrumbPath: String?
    /// With a breadcrumb: record fatal signals (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP)
    /// in it, then hand them on to whatever handled them before (the Swift runtime's backtracer).
    public var recordsCrashes: Bool = true
    /// Called on the watch's thread for each warning: drop caches, shed load. Keep it short.
    public var onWarning: (@Sendable (MemoryWarning) -> Void)?
    /// Appends each warning, and the previous exit found at start, as one JSON object per line.
    public var jsonLinesPath: String?
    /// With a heap profiler running (ProbeHeap's `HeapProfiler.start()`): each near-limit and
    /// limit-reached warning writes the heap profile into this directory first,
    /// `heap-<pid>-<time>.pb.gz` (gzipped pprof, whole or not at all), and names it in the warning's
    /// `heapProfile`; the next instance's ``PreviousExit`` names the last one its predecessor wrote.
    /// Like the breadcrumb, it must survive a restart. Nil: none written.
    public var heapProfileDirectory: String?
    /// The newest heap profiles kept in `heapProfileDirectory` (older ones are removed). Default 5.
    public var heapProfilesKept: Int = 5
    /// A heap profile larger than this is not written (the warning says why). Default 16 MiB.
    public var heapProfileMaxBytes: Int = 16 << 20
    /// Logs a warning per memory warning and a line for the previous exit.
    public var logger: Logger?
    /// Reports through swift-metrics: `probe_memory_warnings_total` (counter; dimensions `watch`,
    /// `reason`), `probe_memory_usage_bytes` and `probe_memory_limit_bytes` (gauges: the cgroup's),
    /// `probe_memory_rss_bytes` (gauge; `kind` = anon, file), `probe_previous_exit_total` (counter;
    /// `reason`), `probe_memory_records_dropped_total`.
    public var metrics: Bool = true
    /// The metrics backend; nil uses the one bootstrapped with `MetricsSystem`.
    public var metricsFactory: (any MetricsFactory)?
    /// Where /proc and /sys are: tests point it at captured files of other machines.
    @_spi(Testing) public var fileSystemRoot: String = ""

    public init(name: String = "memory", breadcrumbPath: String? = nil) {
        self.name = name
        self.breadcrumbPath = breadcrumbPath
    }

    /// Why this configuration cannot be used, or nil when it can.
    var problem: String? {
        if pressureStall <= .zero { return "pressureStall must be positive (it is \(pressureStall))" }
        if pressureWindow < .milliseconds(500) || pressureWindow > .seconds(10) {
            return "pressureWindow must be 500 ms to 10 s (it is \(pressureWindow))"
        }
        if pressureStall >= pressureWindow {
            return "pressureStall (\(pressureStall)) must be shorter than pressureWindow (\(pressureWindow))"
        }
        if !(nearLimitFraction > 0 && nearLimitFraction <= 1) {
            return "nearLimitFraction must be above 0 and at most 1 (it is \(nearLimitFraction))"
        }
        if heapProfilesKept < 1 { return "heapProfilesKept must be at least 1 (it is \(heapProfilesKept))" }
        if heapProfileMaxBytes < 1 { return "heapProfileMaxBytes must be positive (it is \(heapProfileMaxBytes))" }
        if checkInterval < .milliseconds(10) { return "checkInterval must be at least 10 ms (it is \(checkInterval))" }
        return nil
    }
}
