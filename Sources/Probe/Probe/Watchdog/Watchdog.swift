import CProbe
import Foundation
import Logging
import ProbeRecords
import Synchronization

/// Watches one thread that must stay responsive and reports every stall longer than a threshold,
/// with stacks sampled while the stall lasts.
///
/// ```swift
/// let watchdog = Watchdog(watching: .mainQueue, configuration: .init(name: "main"))
/// watchdog.start()   // idempotent, thread-safe
/// …
/// watchdog.stop()    // restores the previous signal handler once no watchdog needs it
/// ```
///
/// The watchdog runs its own thread. It never blocks on the watched thread: a stack sample is a
/// real-time signal to that thread and a wait with a timeout for the handler's answer.
public final class Watchdog: Sendable {
    public let target: WatchTarget
    public let configuration: WatchdogConfiguration

    private struct Running {
        var loop: WatchdogLoop
        var stopRequest: DispatchSemaphore
        var finished: DispatchSemaphore
        var watchdogThread: Int32
    }

    private let running = Mutex<Running?>(nil)
    private let startStop = Mutex<Void>(())
    private let recent = Mutex(RecentStalls())
    private let counts = Mutex<(stalls: Int, pausesIgnored: Int)>((0, 0))
    private let startLimitations = Mutex<[String]>([])

    public init(watching target: WatchTarget, configuration: WatchdogConfiguration) {
        self.target = target
        self.configuration = configuration
    }

    /// Starts watching. Does nothing when already running. Throws when the configuration cannot
    /// work (a threshold below the sample interval, …), when another running watchdog watches the
    /// same target (the same queue, heartbeat or executor name, or the cooperative pool), or when
    /// the signal handler cannot be installed.
    public func start() throws {
        try startStop.withLock { _ in
            if running.withLock({ $0 != nil }) { return }
            if let problem = configuration.problem {
                throw StartError(.invalidConfiguration, "watchdog \"\(configuration.name)\": \(problem)")
            }
            if let path = configuration.jsonLinesPath, let problem = JSONLines.cannotAppend(to: path) {
                throw StartError(
                    .outletUnusable, "watchdog \"\(configuration.name)\": cannot append stalls to \(path): \(problem)",
                    path: path)
            }
            if let directory = configuration.pprofDirectory, let problem = StallOutlets.cannotWriteFiles(in: directory)
            {
                throw StartError(
                    .outletUnusable,
                    "watchdog \"\(configuration.name)\": cannot write stall profiles in \(directory): \(problem)",
                    path: directory)
            }
            if let owner = WatchedTargets.claim(target, by: configuration.name) {
                throw StartError(
                    .alreadyWatched,
                    "watchdog \"\(configuration.name)\": \(target.identity) is already watched by watchdog \"\(owner)\" (stop it first)"
                )
            }
            var claimed = true
            defer { if claimed { WatchedTargets.release(target) } }
            let installError = cprobe_install_handler(configuration.signal)
            guard installError == 0 else {
                throw StartError(
                    .signalUnavailable,
                    "cannot install the handler for signal \(configuration.signal): \(String(cString: strerror(installError)))",
                    errorNumber: installError)
            }
            let slot = cprobe_slot_acquire()
            guard slot >= 0 else {
                cprobe_uninstall_handler(configuration.signal)
                throw StartError(.tooManyWatchdogs, "too many watchdogs sampling at once (at most \(CPROBE_MAX_SLOTS))")
            }
            let stopRequest = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            let started = DispatchSemaphore(value: 0)
            let loop = WatchdogLoop(watchdog: self, slot: slot, stopRequest: stopRequest)
            let limitations = loop.prepare()
            startLimitations.withLock { $0 = limitations }
            startedAt.store(cprobe_monotonic_ns(), ordering: .relaxed)
            if let logger = configuration.logger {
                for limitation in limitations {
                    logger.warning("watchdog \"\(configuration.name)\": \(limitation)")
                }
            }
            let threadID = Mutex<Int32>(0)
            // Named after its sampling slot: the kernel keeps 15 bytes, too few for the watchdog's name.
            ProbeThreads.start(name: "probe-wd-\(slot)") {
                threadID.withLock { $0 = cprobe_gettid() }
                started.signal()
                loop.run()
                finished.signal()
            }
            started.wait()
            claimed = false  // kept until stop()
            running.withLock {
                $0 = Running(
                    loop: loop, stopRequest: stopRequest, finished: finished,
                    watchdogThread: threadID.withLock { $0 })
            }
        }
    }

    /// Stops watching and waits for the watchdog thread to finish; a stall going on is reported
    /// with `ongoing: true`. Does nothing when not running.
    public func stop() {
        startStop.withLock { _ in
            guard let current = running.withLock({ $0 }) else { return }
            current.loop.requestStop()
            // From the watchdog's own callback the loop cannot be waited for: it finishes by itself
            // right after the callback returns, releasing its slot and the signal handler.
            if cprobe_gettid() != current.watchdogThread { current.finished.wait() }
            running.withLock { $0 = nil }
            WatchedTargets.release(target)
        }
    }

    /// Why stalls have no stacks once the application (or another profiler) replaced Probe's handler.
    static func handlerTaken(_ signal: Int32) -> String {
        "signal \(signal)'s handler was replaced after Probe installed it (the application's or another profiler's sigaction): no stacks are sampled while it is someone else's (choose another signal with PROBE_SIGNAL)"
    }

    /// True while Probe's sampling handler is installed for `signal` (by any watchdog).
    static func isHandlerInstalled(signal: Int32) -> Bool { cprobe_handler_installed(signal) != 0 }

    public var isRunning: Bool { running.withLock { $0 != nil } }

    /// The running loop and its thread's id, nil when not running (for the tests).
    var runningLoop: (loop: WatchdogLoop, thread: Int32)? {
        running.withLock { $0.map { ($0.loop, $0.watchdogThread) } }
    }

    /// What this watchdog cannot see in this process, found at its latest `start()` (also logged as
    /// warnings to the configuration's logger): e.g. long jobs on the cooperative pool when another
    /// library has taken over Swift concurrency's global executor. Empty when it sees everything.
    public var limitations: [String] {
        var limitations = startLimitations.withLock { $0 }
        if case .cooperativePool = target, isRunning, limitations.isEmpty {
            limitations += PoolJobs.shortcomings(startedAt: runningSince)
        }
        if isRunning, let asyncCallers = AsyncChains.unavailable { limitations.append("async callers \(asyncCallers)") }
        if isRunning, cprobe_handler_taken(configuration.signal) != 0 {
            limitations.append(Self.handlerTaken(configuration.signal))
        }
        return limitations
    }

    /// When the latest `start()` began watching (CLOCK_MONOTONIC ns).
    private var runningSince: UInt64 { startedAt.load(ordering: .relaxed) }
    private let startedAt = Atomic<UInt64>(0)

    /// The most recent stalls, oldest first (at most `recentStallCapacity`).
    public var recentStalls: [StallRecord] { recent.withLock { $0.records } }

    /// Stalls reported since creation, and busy periods of at least the threshold not reported
    /// because what was excused from them left them shorter: the whole process paused (SIGSTOP, a
    /// debugger, a suspend) or their thread waiting for a CPU. Each is also logged (notice) and
    /// counted in `probe_stalls_excused_total`.
    public var statistics: (stalls: Int, pausesIgnored: Int) { counts.withLock { $0 } }

    /// Stall records that could not be appended to `jsonLinesPath` since creation (the disk
    /// full, the file removed with its directory, …); each is also logged to the configuration's
    /// logger, and still went to every other outlet.
    public var unwrittenRecords: Int { outletFailuresCounter.value }

    let outletFailuresCounter = FailureCounter()

    func record(_ stall: StallRecord) {
        recent.withLock { $0.append(stall, capacity: configuration.recentStallCapacity) }
        counts.withLock { $0.stalls += 1 }
    }

    /// The final record of a stall reported early as ongoing: it takes that record's place when
    /// that record is still the latest, and is added otherwise (not counted again either way).
    func replaceLatest(with stall: StallRecord) {
        recent.withLock { ring in
            if let last = ring.records.last, last.ongoing, last.start == stall.start, last.threadID == stall.threadID {
                ring.removeLatest()
            }
            ring.append(stall, capacity: configuration.recentStallCapacity)
        }
    }

    func notePauseIgnored() {
        counts.withLock { $0.pausesIgnored += 1 }
    }
}

/// A count shared between a watchdog and its loop's outlets.
final class FailureCounter: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
