import CProbe
import Foundation
import ProbeRecords
import Synchronization

/// Finds requests that never finish though nothing is busy: Swift tasks suspended at the same await
/// for longer than `configuration.threshold` (a continuation nobody resumes, a dependency that never
/// answers). Each such group of tasks is reported once, while it lasts, as a record classified
/// `parked` to the configuration's outlets (JSON lines, log, metrics, `onStall`).
///
/// ```swift
/// let parked = ParkedTaskWatch(configuration: .init(name: "parked", threshold: .seconds(30)))
/// try parked.start()
/// ```
///
/// No runtime field says when a task suspended, so the watch looks every half threshold (at least
/// half a second apart) and compares: a task seen suspended at the same await with the same async context at
/// every look since the first has been parked at least that long. Each look lists every task
/// (``SwiftTasks``): it reads the process's resident writable memory once.
public final class ParkedTaskWatch: Sendable {
    public let configuration: WatchdogConfiguration
    /// Beginnings of function names of tasks that wait by design: a group with a frame whose
    /// function's name begins with one of them is not reported.
    public let ignoring: [String]
    private let running = Mutex<(stop: DispatchSemaphore, finished: DispatchSemaphore)?>(nil)
    private let startLimitations = Mutex<[String]>([])
    private let recent = Mutex<[StallRecord]>([])
    private let lookCount = Atomic<Int>(0)

    /// The shortest threshold: a look reads all of the process's memory, so not more than twice a second.
    public static let shortestThreshold: Duration = .seconds(1)

    /// `ignoring`: beginnings of the names of functions whose tasks wait by design, such as a server's
    /// accept loop or a service group waiting for shutdown (`["HummingbirdCore.Server.run(",
    /// "ServiceLifecycle.ServiceGroup."]`): a group with a frame of such a function is not reported.
    /// A beginning, not any part: a request's chain holds closures named `closure #1 … in
    /// HummingbirdCore.Server.run()`, and they must not hide it.
    public init(configuration: WatchdogConfiguration, ignoring: [String] = []) {
        self.configuration = configuration
        self.ignoring = ignoring
    }

    /// How long between looks: half the threshold, at least half a second.
    var lookInterval: Duration { max(configuration.threshold / 2, .milliseconds(500)) }

    /// Starts looking. Does nothing when already running. Throws when the threshold is under
    /// ``shortestThreshold``, an outlet cannot be written, or this process's tasks cannot be listed.
    public func start() throws {
        try running.withLock { state in
            guard state == nil else { return }
            let name = configuration.name
            if configuration.threshold < Self.shortestThreshold {
                throw Watchdog.StartError(
                    .invalidConfiguration,
                    "parked-task watch \"\(name)\": the threshold (\(configuration.threshold)) is under \(Self.shortestThreshold)"
                )
            }
            if let path = configuration.jsonLinesPath, let problem = JSONLines.cannotAppend(to: path) {
                throw Watchdog.StartError(
                    .outletUnusable, "parked-task watch \"\(name)\": cannot append records to \(path): \(problem)",
                    path: path)
            }
            if case .failure(let reason) = SwiftTasks.runtime {
                throw Watchdog.StartError(
                    .unsupported, "parked-task watch \"\(name)\": tasks cannot be listed: \(reason.message)")
            }
            FramePointerCode.publish()
            // Probe's hook on the global executor counts each task's resumptions: a task that runs
            // every second at the same await, with the same contexts, is not parked.
            var limitations: [String] = []
            if cprobe_pool_jobs_install(configuration.signal) != Int32(CPROBE_POOL_JOBS_INSTALLED) {
                limitations.append(
                    "tasks resumed through another library's global executor are judged by their contexts' contents only (a loop that keeps nothing changing in them may be reported)"
                )
                configuration.logger?.warning("parked-task watch \"\(name)\": \(limitations[0])")
            }
            let hooked = limitations.isEmpty
            startLimitations.withLock { $0 = limitations }
            let stop = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            let outlets = StallOutlets(configuration: configuration)
            let interval = lookInterval
            ProbeThreads.start(name: "probe-parked") { [self] in
                var tracker = ParkedTaskTracker(threshold: configuration.threshold.nanoseconds)
                while stop.wait(timeout: .now() + .nanoseconds(Int(interval.nanoseconds))) == .timedOut {
                    let listing = SwiftTasks.list(fingerprints: true)
                    lookCount.add(1, ordering: .relaxed)
                    for group in tracker.look(listing.tasks, now: cprobe_monotonic_ns()) {
                        guard let record = self.record(of: group) else { continue }
                        recent.withLock {
                            $0.append(record)
                            if $0.count > configuration.recentStallCapacity { $0.removeFirst() }
                        }
                        outlets.deliver(record)
                    }
                }
                if hooked { cprobe_pool_jobs_uninstall() }
                finished.signal()
            }
            state = (stop, finished)
        }
    }

    /// Stops looking and waits for the watch's thread to end. Does nothing when not running.
    public func stop() {
        guard
            let state = running.withLock({ state in
                defer { state = nil }
                return state
            })
        else { return }
        state.stop.signal()
        state.finished.wait()
    }

    public var isRunning: Bool { running.withLock { $0 != nil } }

    /// What this watch cannot tell in this process, found at its latest `start()` (also logged).
    public var limitations: [String] { startLimitations.withLock { $0 } }

    /// The latest records, oldest first (at most `recentStallCapacity`).
    public var recentRecords: [StallRecord] { recent.withLock { $0 } }

    /// Looks taken since creation.
    public var looks: Int { lookCount.load(ordering: .relaxed) }

    /// The group's record, or nil when it is one of the ignored.
    private func record(of group: ParkedTaskTracker.Group) -> StallRecord? {
        let frames = Symbolicator.shared.symbolicate(stack: group.key.stack)
        if frames.contains(where: { frame in ignoring.contains { frame.functionName.hasPrefix($0) } }) { return nil }
        let parked = Double(group.parkedNanoseconds)
        var record = StallRecord(
            watchdog: configuration.name, threadID: 0, start: Date(timeIntervalSinceNow: -parked / 1e9),
            durationNanoseconds: parked, ongoing: true,
            thresholdNanoseconds: Double(configuration.threshold.nanoseconds), threadCPUNanoseconds: nil,
            classification: .parked, threadStates: [], sampleCount: 0, unansweredSamples: 0, callTree: nil,
            topStack: frames, groupKey: StallBuilder.groupKey(frames))
        record.tasks = ParkedTasks(
            count: group.ids.count, ids: Array(group.ids.sorted().prefix(100)), waitingOn: group.key.waitingOn)
        return record
    }
}

/// The parked-task watch's memory between looks, apart from its thread so that it is tested in
/// virtual time: which suspended task was first seen when at its current await and context.
struct ParkedTaskTracker {
    struct Group: Equatable {
        var key: SwiftTasks.GroupKey
        var ids: [UInt64]
        /// The longest any of them has been seen parked: a lower bound of how long they have been.
        var parkedNanoseconds: UInt64
    }

    let threshold: UInt64
    private var firstSeen: [UInt64: (function: UInt, context: UInt, fingerprint: UInt64, at: UInt64)] = [:]
    /// Each group reported, with its count then.
    private var reported: [SwiftTasks.GroupKey: Int] = [:]

    init(threshold: UInt64) { self.threshold = threshold }

    /// The groups parked for the threshold or longer at this look that were not reported yet, or
    /// have doubled since they were. A group is reported anew after a look found none of it parked
    /// that long.
    mutating func look(_ tasks: [SwiftTasks.ListedTask], now: UInt64) -> [Group] {
        var seen: [UInt64: (function: UInt, context: UInt, fingerprint: UInt64, at: UInt64)] = [:]
        var parked: [SwiftTasks.GroupKey: (ids: [UInt64], since: UInt64)] = [:]
        for task in tasks where task.group.state == .suspended {
            var since = now
            if let earlier = firstSeen[task.id], earlier.function == task.resumeFunction,
                earlier.context == task.resumeContext, earlier.fingerprint == task.fingerprint
            {
                since = earlier.at
            }
            seen[task.id] = (task.resumeFunction, task.resumeContext, task.fingerprint, since)
            guard now &- since >= threshold else { continue }
            var entry = parked[task.group] ?? ([], since)
            entry.ids.append(task.id)
            entry.since = min(entry.since, since)
            parked[task.group] = entry
        }
        firstSeen = seen
        let fresh = parked.filter { key, group in reported[key].map { group.ids.count >= 2 * $0 } ?? true }
        reported = reported.filter { parked[$0.key] != nil }.merging(fresh.mapValues(\.ids.count)) { $1 }
        return fresh.map { Group(key: $0.key, ids: $0.value.ids, parkedNanoseconds: now &- $0.value.since) }
            .sorted { $0.ids.count > $1.ids.count }
    }
}
