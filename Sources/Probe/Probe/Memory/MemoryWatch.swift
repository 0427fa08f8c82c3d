import CProbe
import Foundation
import Synchronization

/// Watches the process's memory the way the kernel sees it and reports memory warnings — pressure
/// (a PSI trigger), usage near the cgroup's limit, the cgroup at its limit or OOM-killing — and,
/// with a breadcrumb file, how the previous instance ended (``PreviousExit``).
///
/// ```swift
/// let memory = MemoryWatch(configuration: .init(breadcrumbPath: "/var/lib/myservice/probe.breadcrumb"))
/// try memory.start()     // logs and counts how the previous instance ended; idempotent
/// …
/// memory.stop()          // a graceful shutdown: the next instance reads "clean"
/// ```
///
/// One thread of its own, asleep in poll() on the pressure trigger between checks (one a second
/// by default). It finds the process's memory cgroup (v2, or v1's memory controller) at start and
/// says in ``limitations`` (and the logger) what it cannot see here.
public final class MemoryWatch: Sendable {
    public let configuration: MemoryWatchConfiguration

    private struct Running {
        var loop: MemoryWatchLoop
        var finished: DispatchSemaphore
        var keepsBreadcrumb: Bool
    }

    private let running = Mutex<Running?>(nil)
    private let startStop = Mutex<Void>(())
    private let found = Mutex<(limitations: [String], previousExit: PreviousExit?)>(([], nil))
    private let outlets: MemoryOutlets
    let state = MemoryWatchState()
    /// One breadcrumb per process: the crash handler writes into one record.
    private static let breadcrumbKept = Atomic<Bool>(false)

    public init(configuration: MemoryWatchConfiguration = MemoryWatchConfiguration()) {
        self.configuration = configuration
        outlets = MemoryOutlets(configuration: configuration)
    }

    /// Starts watching; does nothing when already running. With a breadcrumb it first reads how the
    /// previous instance ended (``previousExit``; logged, counted and written as a record). Throws
    /// for a setting out of range, a JSON-lines file or breadcrumb it cannot use (a breadcrumb
    /// another process keeps, or a file that is not one), or a second breadcrumb in this process.
    /// A facility that is missing here (PSI, a memory cgroup, the right to arm a trigger) is not an
    /// error: ``limitations`` says what is missing and what still works.
    public func start() throws {
        try startStop.withLock { _ in
            if running.withLock({ $0 != nil }) { return }
            let name = configuration.name
            if let problem = configuration.problem {
                throw MemoryWatchError(kind: .invalidConfiguration, message: "memory watch \"\(name)\": \(problem)")
            }
            if let directory = configuration.heapProfileDirectory, !Self.isWritableDirectory(directory) {
                throw MemoryWatchError(
                    kind: .fileUnusable, message: "\(directory): heapProfileDirectory is not a writable directory",
                    path: directory)
            }
            if let path = configuration.jsonLinesPath, let problem = JSONLines.cannotAppend(to: path) {
                throw MemoryWatchError(
                    kind: .fileUnusable, message: "\(path): cannot append memory records: \(problem)", path: path)
            }
            let root = configuration.fileSystemRoot
            let discovery = MemoryCgroup.find(root: root)
            var limitations = discovery.missing
            var trigger: Int32 = -1
            if let file = discovery.pressureFile {
                switch PressureStall.armTrigger(
                    file: file, stall: configuration.pressureStall, window: configuration.pressureWindow)
                {
                case .success(let armed):
                    trigger = armed.fd
                    if let note = armed.note { limitations.append(note) }
                case .failure(let error):
                    limitations.append("\(error.description): no pressure warnings (the PSI averages are still read)")
                }
            }
            var breadcrumb: Breadcrumb?
            var previous: PreviousExit?
            if let path = configuration.breadcrumbPath {
                guard !Self.breadcrumbKept.exchange(true, ordering: .acquiring) else {
                    if trigger >= 0 { close(trigger) }
                    throw MemoryWatchError(
                        kind: .alreadyKeepingABreadcrumb,
                        message: "\(path): another memory watch of this process already keeps a breadcrumb", path: path)
                }
                do {
                    let bootID = Breadcrumb.bootID(root: root)
                    let (crumb, left) = try Breadcrumb.open(path: path, bootID: bootID, cgroup: discovery.cgroup)
                    breadcrumb = crumb
                    previous = left.map { Self.classify($0, bootID: bootID, root: root) }
                    if let directory = configuration.heapProfileDirectory, let exit = previous, exit.reason != .clean,
                        let profile = MemoryHeapProfiles.latest(
                            directory: directory, pid: exit.pid, since: exit.started)
                    {
                        previous?.heapProfile = profile
                        previous?.evidence.append("its last heap profile: \(profile)")
                    }
                } catch {
                    Self.breadcrumbKept.store(false, ordering: .releasing)
                    if trigger >= 0 { close(trigger) }
                    throw error
                }
                if configuration.recordsCrashes, let breadcrumb {
                    let error = cprobe_breadcrumb_install_crash_handler(breadcrumb.record)
                    if error != 0 {
                        limitations.append(
                            "cannot install the crash handler (\(String(cString: strerror(error)))): a crash will read as killed otherwise"
                        )
                    }
                }
            }
            found.withLock { $0 = (limitations, previous) }
            for limitation in limitations {
                configuration.logger?.warning("memory watch \"\(name)\": \(limitation)")
            }
            if let previous { outlets.deliver(previous) }

            let loop = MemoryWatchLoop(
                configuration: configuration, cgroup: discovery.cgroup, pressureFile: discovery.pressureFile,
                trigger: trigger, breadcrumb: breadcrumb, outlets: outlets, state: state)
            guard loop.stopFD >= 0 else {
                let error = errno
                if let breadcrumb {
                    cprobe_breadcrumb_uninstall_crash_handler()
                    breadcrumb.close(clean: false)
                    Self.breadcrumbKept.store(false, ordering: .releasing)
                }
                if trigger >= 0 { close(trigger) }
                throw MemoryWatchError(
                    kind: .fileUnusable,
                    message: "memory watch \"\(name)\": cannot make its stop pipe: \(String(cString: strerror(error)))",
                    errorNumber: error)
            }
            let finished = DispatchSemaphore(value: 0)
            ProbeThreads.start(name: "probe-memory") {
                loop.run()
                finished.signal()
            }
            running.withLock {
                $0 = Running(loop: loop, finished: finished, keepsBreadcrumb: breadcrumb != nil)
            }
        }
    }

    /// Stops watching, marks the breadcrumb as a clean shutdown and gives it up, and finishes the
    /// warning streams. Does nothing when not running.
    public func stop() {
        startStop.withLock { _ in
            guard let current = running.withLock({ $0 }) else { return }
            if current.keepsBreadcrumb { cprobe_breadcrumb_uninstall_crash_handler() }
            current.loop.requestStop()
            current.finished.wait()
            if current.keepsBreadcrumb { Self.breadcrumbKept.store(false, ordering: .releasing) }
            outlets.finishStreams()
            running.withLock { $0 = nil }
        }
    }

    public var isRunning: Bool { running.withLock { $0 != nil } }

    /// What this watch cannot see here, found at its latest `start()` and logged there, each with
    /// what still works: no PSI, no memory cgroup, no right to arm a pressure trigger, …
    public var limitations: [String] { found.withLock { $0.limitations } }

    /// How the instance before this one ended, read from the breadcrumb at the latest `start()`;
    /// nil without a breadcrumb, or when the file was new.
    public var previousExit: PreviousExit? { found.withLock { $0.previousExit } }

    /// The latest check's figures; nil before the first.
    public var latest: MemorySnapshot? { state.latest }

    /// The most recent warnings, oldest first (at most 32).
    public var recentWarnings: [MemoryWarning] { state.recentWarnings }

    /// Records `jsonLinesPath` did not take (each also counted in `probe_memory_records_dropped_total`).
    public var unwrittenRecords: Int { outlets.unwritten.load(ordering: .relaxed) }

    /// Every warning from now on, until the watch stops (the newest 64 kept while nobody reads).
    public func warnings() -> AsyncStream<MemoryWarning> { outlets.stream() }

    static func isWritableDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
            && access(path, W_OK) == 0
    }

    static func classify(_ crumb: cprobe_breadcrumb, bootID: String?, root: String) -> PreviousExit {
        let directory = Breadcrumb.text(crumb.cgroup_directory)
        let version: MemoryCgroup.Version? = crumb.cgroup_version == 1 ? .v1 : crumb.cgroup_version == 2 ? .v2 : nil
        let oomKillsNow = version.flatMap { MemoryCgroup.oomKills(version: $0, directory: directory) }
        return PreviousExitClassifier.classify(
            crumb, bootID: bootID, oomKillsNow: oomKillsNow,
            nearLimitFraction: MemoryWatchConfiguration().nearLimitFraction)
    }
}

/// How the instance that last used the breadcrumb at `path` ended, without starting a watch (for
/// tools; a service gets it from ``MemoryWatch/previousExit``). Nil when there is no such file or
/// it is empty; throws when it holds something else.
public func previousExit(breadcrumb path: String) throws -> PreviousExit? {
    guard let crumb = try Breadcrumb.read(path: path) else { return nil }
    return MemoryWatch.classify(crumb, bootID: Breadcrumb.bootID(root: ""), root: "")
}

/// What the watch's thread shares with callers: the latest figures and warnings.
final class MemoryWatchState: Sendable {
    private let snapshot = Mutex<MemorySnapshot?>(nil)
    private let warnings = Mutex<[MemoryWarning]>([])

    var latest: MemorySnapshot? { snapshot.withLock { $0 } }
    var recentWarnings: [MemoryWarning] { warnings.withLock { $0 } }

    func note(_ latest: MemorySnapshot) { snapshot.withLock { $0 = latest } }
    func note(_ warning: MemoryWarning) {
        warnings.withLock {
            $0.append(warning)
            if $0.count > 32 { $0.removeFirst($0.count - 32) }
        }
    }
}
