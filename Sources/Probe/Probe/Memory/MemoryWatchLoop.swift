import CProbe
import Foundation

/// The memory watch's thread: asleep in poll() on the PSI trigger and a stop descriptor, waking for
/// a pressure event or every `checkInterval` to read the figures, keep the breadcrumb and decide
/// warnings. Everything here is owned by that one thread (`requestStop` only writes to the stop pipe).
final class MemoryWatchLoop: @unchecked Sendable {
    private let configuration: MemoryWatchConfiguration
    private let cgroup: MemoryCgroup?
    private let pressureFile: String?
    private var trigger: Int32
    /// A pipe: `requestStop` writes a byte to `stopWriter`, which wakes the poll on `stopFD`.
    let stopFD: Int32
    private let stopWriter: Int32
    private let breadcrumb: Breadcrumb?
    private let outlets: MemoryOutlets
    private let state: MemoryWatchState
    /// Near-limit warnings are made once per crossing: re-armed once usage falls 5 points below.
    private var nearLimitArmed = true
    private var eventsAtLastCheck: [String: UInt64] = [:]
    private var eventsAtLastWarning: [String: UInt64] = [:]
    /// The files a check reads, kept open from the first check to `finish()`.
    private let files: KeptFiles
    private let cgroupReader: MemoryCgroup.Reader?
    private let status: Int
    private let pressure: Int?

    /// memory.events counters whose rise is a warning: the cgroup was throttled over memory.high,
    /// or the OOM killer ran in it. (`max` rises whenever a charge meets the limit and reclaim
    /// makes room — every second for a service whose page cache fills its limit — so it is
    /// reported with a warning but never makes one.)
    static let warningEvents = ["high", "oom", "oom_kill"]

    init(
        configuration: MemoryWatchConfiguration, cgroup: MemoryCgroup?, pressureFile: String?, trigger: Int32,
        breadcrumb: Breadcrumb?, outlets: MemoryOutlets, state: MemoryWatchState
    ) {
        self.configuration = configuration
        self.cgroup = cgroup
        self.pressureFile = pressureFile
        self.trigger = trigger
        self.breadcrumb = breadcrumb
        self.outlets = outlets
        self.state = state
        let files = KeptFiles()
        self.files = files
        cgroupReader = cgroup.map { MemoryCgroup.Reader(cgroup: $0, files: files) }
        status = files.add(configuration.fileSystemRoot + "/proc/self/status")
        pressure = pressureFile.map(files.add)
        var ends: [Int32] = [-1, -1]
        _ = pipe(&ends)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        (stopFD, stopWriter) = (ends[0], ends[1])
    }

    func requestStop() {
        var one: UInt8 = 1
        _ = write(stopWriter, &one, 1)
    }

    func run() {
        let timeout = Int32(clamping: configuration.checkInterval.nanoseconds / 1_000_000)
        let first = measure()
        eventsAtLastCheck = first.events
        eventsAtLastWarning = first.events
        judge(first, pressureEvent: false)
        while true {
            var fds = [
                pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0),
                pollfd(fd: trigger, events: Int16(POLLPRI), revents: 0),
            ]
            let ready = poll(&fds, trigger >= 0 ? 2 : 1, timeout)
            if ready < 0 && errno == EINTR { continue }
            if fds[0].revents != 0 { break }
            var pressureEvent = false
            if trigger >= 0 {
                let revents = Int32(fds[1].revents)
                if revents & Int32(POLLPRI) != 0 && revents & Int32(POLLERR | POLLNVAL) == 0 {
                    pressureEvent = true
                } else if revents & Int32(POLLERR | POLLNVAL) != 0 {
                    // The cgroup's pressure file went away (the cgroup was removed): stop waiting on it.
                    configuration.logger?.warning(
                        "memory watch \"\(configuration.name)\": the pressure trigger on \(pressureFile ?? "?") ended: no more pressure warnings"
                    )
                    close(trigger)
                    trigger = -1
                }
            }
            check(pressureEvent: pressureEvent)
        }
        finish()
    }

    /// Closes every descriptor the loop holds and marks the breadcrumb clean: the thread's last act.
    func finish() {
        if trigger >= 0 { close(trigger) }
        trigger = -1
        close(stopFD)
        close(stopWriter)
        files.closeAll()
        breadcrumb?.close(clean: true)
    }

    /// One check as the thread makes it between polls (read the figures, keep them, decide warnings).
    func check(pressureEvent: Bool = false) {
        judge(measure(), pressureEvent: pressureEvent)
    }

    struct Measurement {
        var memory: MemorySnapshot
        var events: [String: UInt64]
        var pressure: PressureStall?
    }

    private func measure() -> Measurement {
        let reading = cgroupReader?.read()
        var memory = MemorySnapshot(
            cgroupVersion: cgroup?.version.rawValue, cgroupDirectory: cgroup?.directory,
            usageBytes: reading?.usageBytes,
            limitBytes: reading?.limitBytes, rssAnonBytes: nil, rssFileBytes: nil, pressureFile: pressureFile)
        files.read(status) { bytes in
            ByteText.forEachLine(in: bytes) { line in
                let anon = ByteText.hasPrefix(line, "RssAnon:")
                guard anon || ByteText.hasPrefix(line, "RssFile:") else { return }
                let kibibytes = ByteText.secondField(line).flatMap(ByteText.decimal).map { $0 * 1024 }
                if anon {
                    memory.rssAnonBytes = kibibytes
                } else {
                    memory.rssFileBytes = kibibytes
                }
            }
        }
        let pressure = self.pressure.flatMap { files.read($0, PressureStall.parse) ?? nil }
        return Measurement(memory: memory, events: reading?.events ?? [:], pressure: pressure)
    }

    private func judge(_ now: Measurement, pressureEvent: Bool) {
        state.note(now.memory)
        outlets.gauges(now.memory)
        breadcrumb?.update(
            now.memory, oomKills: now.events["oom_kill"], someAvg10: now.pressure?.someAvg10, phase: Self.lastPhase())

        // Worded only for a warning: most checks make none.
        if pressureEvent {
            let stall = Int(configuration.pressureStall.nanoseconds / 1_000_000)
            let window = Int(configuration.pressureWindow.nanoseconds / 1_000_000)
            let averages = now.pressure.map { String(format: " (some avg10 %.2f%%)", $0.someAvg10) } ?? ""
            warn(
                .pressure,
                "tasks stalled on memory for \(stall) ms within \(window) ms\(averages); \(Self.describe(now.memory))",
                now)
        }
        if let fraction = now.memory.usedFraction {
            if fraction >= configuration.nearLimitFraction, nearLimitArmed {
                nearLimitArmed = false
                warn(
                    .nearLimit,
                    "usage crossed \(PreviousExitClassifier.percent(configuration.nearLimitFraction)) of the limit; \(Self.describe(now.memory))",
                    now)
            } else if fraction < configuration.nearLimitFraction - 0.05 {
                nearLimitArmed = true
            }
        }
        let rises = Self.warningEvents.compactMap { name -> String? in
            guard let value = now.events[name], value > (eventsAtLastCheck[name] ?? 0) else { return nil }
            return "\(name) +\(value - (eventsAtLastCheck[name] ?? 0))"
        }
        if !rises.isEmpty {
            warn(
                .limitReached,
                "the cgroup's memory events rose (\(rises.joined(separator: ", "))); \(Self.describe(now.memory))", now)
        }
        eventsAtLastCheck = now.events
    }

    private func warn(_ reason: MemoryWarning.Reason, _ message: String, _ now: Measurement) {
        var increments: [String: UInt64] = [:]
        for (name, value) in now.events where value > (eventsAtLastWarning[name] ?? 0) {
            increments[name] = value - (eventsAtLastWarning[name] ?? 0)
        }
        eventsAtLastWarning = now.events
        var warning = MemoryWarning(
            watch: configuration.name, time: Date(), reason: reason, message: message, pressure: now.pressure,
            memory: now.memory, eventIncrements: increments)
        // What holds the memory, before the kernel may end the process: near the limit or at it. The
        // record goes out first, naming the file written right after it: building the profile takes
        // ~11 ms, and a process growing fast was killed meanwhile, its warning lost (1 of 7 runs).
        var profilePath: String?
        if let directory = configuration.heapProfileDirectory, reason != .pressure {
            switch MemoryHeapProfiles.plannedPath(directory: directory) {
            case .success(let path): profilePath = path
            case .failure(let problem): warning.heapProfileProblem = problem.description
            }
            warning.heapProfile = profilePath
        }
        breadcrumb?.noteWarning(reason, someAvg10: now.pressure?.someAvg10)
        state.note(warning)
        outlets.deliver(warning)
        if let profilePath, let directory = configuration.heapProfileDirectory,
            case .failure(let problem) = MemoryHeapProfiles.write(
                to: profilePath, directory: directory, kept: configuration.heapProfilesKept,
                maxBytes: configuration.heapProfileMaxBytes)
        {
            outlets.heapProfileNotWritten(profilePath, for: warning, problem: problem.description)
        }
    }

    /// "cgroup v1 at 231 MiB of 256 MiB (90%), RSS 220 MiB anon + 9 MiB file".
    static func describe(_ memory: MemorySnapshot) -> String {
        var parts: [String] = []
        if let version = memory.cgroupVersion, let usage = memory.usageBytes {
            if let limit = memory.limitBytes, let fraction = memory.usedFraction {
                parts.append(
                    "cgroup \(version) at \(PreviousExitClassifier.mebibytes(usage)) of \(PreviousExitClassifier.mebibytes(limit)) (\(PreviousExitClassifier.percent(fraction)))"
                )
            } else {
                parts.append("cgroup \(version) at \(PreviousExitClassifier.mebibytes(usage)), no limit")
            }
        }
        if let anon = memory.rssAnonBytes, let file = memory.rssFileBytes {
            parts.append(
                "RSS \(PreviousExitClassifier.mebibytes(anon)) anon + \(PreviousExitClassifier.mebibytes(file)) file")
        }
        return parts.isEmpty ? "no figures" : parts.joined(separator: ", ")
    }

    /// The latest `Startup.mark`'s name (a pointer into the mark table: nothing copied here).
    static func lastPhase() -> UnsafePointer<CChar>? {
        let count = cprobe_startup_mark_count()
        guard count > 0 else { return nil }
        var name: UnsafePointer<CChar>?
        var boottime: UInt64 = 0
        return cprobe_startup_mark_at(count - 1, &name, &boottime) == 0 ? name : nil
    }
}

/// The memory watch's check on the calling thread, for the benchmarks: this process's real cgroup
/// and PSI file, no trigger or breadcrumb, gauges into the bootstrapped metrics backend.
@_spi(Benchmarks) public final class MemoryChecks {
    private let loop: MemoryWatchLoop

    public init() {
        let configuration = MemoryWatchConfiguration(name: "benchmark")
        let discovery = MemoryCgroup.find()
        loop = MemoryWatchLoop(
            configuration: configuration, cgroup: discovery.cgroup, pressureFile: discovery.pressureFile, trigger: -1,
            breadcrumb: nil, outlets: MemoryOutlets(configuration: configuration), state: MemoryWatchState())
    }

    /// Makes `count` checks.
    public func check(_ count: Int) {
        for _ in 0..<count { loop.check() }
    }

    /// Closes what the checks keep open.
    public func close() { loop.finish() }
}
