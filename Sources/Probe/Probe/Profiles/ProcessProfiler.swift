import CProbe
import Dispatch
import Foundation
import PerfkitPprof
import ProbeRecords
import Synchronization

/// Profiles the whole process on demand: every thread but Probe's own, sampled by signal from a
/// thread of Probe's (never the caller's) at the request's rate, written as pprof.
///
/// Nothing runs between profiles: the sampling thread, the signal handler and the `/proc`
/// descriptors exist only while ``takeProfile(_:isCancelled:)`` (or a thread dump) runs. One
/// profile at a time per profiler: a second concurrent request throws ``ProfileError/Kind/busy``.
public final class ProcessProfiler: ProfileSource {
    /// What went wrong, for ``ProfileError``.
    public enum ProfileErrorKind: Sendable, Equatable {
        /// `rate` is outside ``ProfileRequest/rates``.
        case invalidRate
        /// `duration` is not positive or exceeds ``ProfileRequest/longestDuration``.
        case invalidDuration
        /// This profiler is already taking a profile.
        case busy
        /// The sampling signal's handler could not be installed.
        case signalUnavailable
        /// Every sampling slot is taken (watchdogs and samplers share them).
        case tooManySamplers
        /// A flight recorder's `capacityBytes` or `keep` is not positive, or its `leadUp` negative.
        case invalidConfiguration
    }

    /// Why a profile was refused: a kind to switch on, a one-line message, and the request's
    /// parameter at fault (`rate`, `duration`) where there is one.
    public typealias ProfileError = ProbeError<ProfileErrorKind>

    /// Why a sample of a thread was not taken. Each is counted, written in the profile's comments
    /// (`sample_failures: signal-blocked=3 exited=1`) and stands in its stack as one frame
    /// (`[not sampled: exited]`), so the profile's totals still hold the time.
    public enum SampleFailure: String, Sendable, CaseIterable, Comparable {
        /// The thread blocks the sampling signal (libdispatch's workers do until Probe prepares them).
        case signalBlocked = "signal-blocked"
        /// The thread ended between its listing and its sample.
        case exited
        /// The handler did not answer within the timeout (the thread did not get a CPU).
        case noAnswer = "no-answer"
        /// The signal could not be sent to a live thread (its queue was full: `RLIMIT_SIGPENDING`).
        case sendFailed = "send-failed"
        /// The slot was still held by a handler that answered late.
        case slotBusy = "slot-busy"
        /// The unwind gave no frame.
        case unwindShort = "unwind-short"
        /// The CPU-timer ring was full when the handler ran (the drainer fell behind).
        case ringFull = "ring-full"
        /// Another handler replaced Probe's for the sampling signal after Probe installed it (the
        /// application's or another profiler's `sigaction`): nothing is sent and the timers stop.
        case handlerTaken = "handler-taken"

        public static func < (lhs: Self, rhs: Self) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// A finished profile.
    public struct Profile: Sendable {
        /// pprof's `Profile` message, not compressed (gzip it for a `.pb.gz`).
        public var pprof: Data
        /// Samples taken (failures not included).
        public var sampleCount: Int
        /// Samples not taken, by reason.
        public var failures: [SampleFailure: Int]
    }

    private let signal: Int32
    private let symbolicator: Symbolicator
    private let busy = Mutex(false)

    public convenience init() {
        self.init(signal: WatchdogConfiguration.defaultSignal)
    }

    /// A profiler that samples with `signal` (the watchdogs' by default: the handler is shared).
    package init(signal: Int32, symbolicator: Symbolicator = .shared) {
        self.signal = signal
        self.symbolicator = symbolicator
    }

    /// Samples the process for `request.duration`; returns nil when `isCancelled` turned true first
    /// (it is polled at least every tick and every 50 ms). Blocks the caller meanwhile.
    public func takeProfile(
        _ request: ProfileRequest, isCancelled: @escaping @Sendable () -> Bool = { false }
    ) throws(ProfileError) -> Profile? {
        try Self.validate(request)
        let claimed = busy.withLock { busy in
            if busy { return false }
            busy = true
            return true
        }
        guard claimed else { throw ProfileError(.busy, "a profile is already being taken") }
        defer { busy.withLock { $0 = false } }
        let signal = signal
        let symbolicator = symbolicator
        return try onProbeThread { () -> Result<Profile?, ProfileError> in
            do throws(ProfileError) {
                let interval = Self.interval(of: request)
                switch request.mode {
                case .cpu:
                    let sampling = try CPUTimerSampling(
                        signal: signal, interval: interval, selects: request.selects(threadNamed:tid:))
                    guard sampling.run(for: request.duration, isCancelled: isCancelled) else { return .success(nil) }
                    return .success(sampling.finish(symbolicator: symbolicator))
                case .wall:
                    let sampler = try Self.makeSampler(signal: signal)
                    let sampling = ProcessSampling(
                        sampler: sampler, interval: interval, selects: request.selects(threadNamed:tid:))
                    guard sampling.run(for: request.duration, isCancelled: isCancelled) else { return .success(nil) }
                    return .success(sampling.finish(symbolicator: symbolicator))
                }
            } catch {
                return .failure(error)
            }
        }.get()
    }

    /// ``takeProfile(_:isCancelled:)``'s pprof bytes, for the server; it throws ``ProfileError``
    /// (`busy` for a second profile at once, `parameter` set for a bad request).
    package func profile(_ request: ProfileRequest, isCancelled: @escaping @Sendable () -> Bool) throws -> Data? {
        try takeProfile(request, isCancelled: isCancelled)?.pprof
    }

    /// Every thread's current stack, as Go's `goroutine?debug=2`: `thread <tid> [<name>, <state>]:`,
    /// one frame a line (`function +0xOFF`, or `function` then `\tfile:line`; a logical caller from
    /// Swift's async chain as `[async] function`, as Swift's backtracer marks it), a blank line between.
    ///
    /// Then the Swift tasks (``SwiftTasks``): `task <id> [<state>…] ×<count>:` over the task's await
    /// site and logical callers, tasks with the same state and chain as one entry (their ids listed
    /// after `# ids`), a running task's stack being its thread's.
    public func threadDumpText() -> String {
        let dump = threadDump()
        var text = ""
        func write(_ frames: [StackFrame]) {
            for frame in frames {
                if frame.async == true { text += "[async] " }
                if let file = frame.file {
                    text += "\(frame.functionName)\n\t\(file):\(frame.line ?? 0)\n"
                } else if frame.address != 0, let offset = frame.symbolOffset, frame.symbol != nil {
                    text += "\(frame.functionName) +0x\(String(offset, radix: 16))\n"
                } else {
                    text += "\(frame.functionName)\n"
                }
            }
        }
        for (index, thread) in dump.threads.enumerated() {
            if index > 0 { text += "\n" }
            text += "thread \(thread.tid) [\(thread.name), \(thread.state)]:\n"
            write(thread.frames)
        }
        if let note = dump.note { text += "\n# \(note)\n" }
        let tasks = dump.tasks
        text += "\n# \(tasks.summary)\(tasks.note.map { " (\($0))" } ?? "")\n"
        for group in tasks.groups {
            text +=
                "\ntask \(group.ids[0]) [\(Self.stateText(group))]\(group.ids.count > 1 ? " ×\(group.ids.count)" : ""):\n"
            if group.ids.count > 1 {
                let shown = group.ids.prefix(20).map(String.init).joined(separator: " ")
                text += "# ids \(shown)\(group.ids.count > 20 ? " …" : "")\n"
            }
            write(symbolicator.symbolicate(stack: group.stack))
        }
        return text
    }

    /// `suspended, waiting on continuation`, `running on thread 4711`.
    private static func stateText(_ group: TaskDump.Group) -> String {
        switch group.state {
        case .running: return group.thread.map { "running on thread \($0)" } ?? "running"
        case .suspended, .enqueued, .notStarted:
            return group.state.rawValue + (group.waitingOn.map { ", waiting on \($0)" } ?? "")
        }
    }

    /// The same stacks as pprof (Go's `goroutine?debug=0`): one sample a thread, `threads/count` 1,
    /// labelled `thread` and `thread_kind`; then one sample a group of tasks that are not running,
    /// its count the group's, labelled `task_state` (and `task_id`, the group's first).
    public func threadDumpProfile() -> Data {
        let dump = threadDump()
        var samples = dump.threads.map { thread in
            ProcessProfileEncoding.Sample(
                frames: thread.frames, values: [1], labels: ProfileSamples.labels(name: thread.name, tid: thread.tid))
        }
        for group in dump.tasks.groups where group.state != .running {
            samples.append(
                ProcessProfileEncoding.Sample(
                    frames: symbolicator.symbolicate(stack: group.stack), values: [Int64(group.ids.count)],
                    labels: [
                        .init(key: "task_state", value: .string(Self.stateText(group))),
                        .init(key: "task_id", value: .number(Int64(truncatingIfNeeded: group.ids[0]), unit: nil)),
                    ]))
        }
        let type = PprofProfile.ValueType(type: "threads", unit: "count")
        let profile = ProcessProfileEncoding.profile(
            samples, sampleTypes: [type], periodType: type, period: 1,
            timeNanos: Int64(Date().timeIntervalSince1970 * 1e9), durationNanos: 0,
            comments: ["thread dump of \(dump.threads.count) threads", dump.tasks.summary]
                + (dump.note.map { [$0] } ?? [])
                + (dump.tasks.note.map { [$0] } ?? []))
        return profile.encoded()
    }

    private func threadDump() -> ThreadDump {
        let signal = signal
        let symbolicator = symbolicator
        return onProbeThread {
            do throws(ProfileError) {
                let sampler = try Self.makeSampler(signal: signal)
                let sampling = ProcessSampling(sampler: sampler, interval: 0)
                var dump = sampling.dump(symbolicator: symbolicator)
                let running = Dictionary(
                    dump.threads.compactMap { thread in thread.task.map { ($0, thread.tid) } },
                    uniquingKeysWith: { a, _ in a })
                dump.tasks = SwiftTasks.dump(runningOn: running)
                return dump
            } catch {
                return ThreadDump(threads: [], note: "no stacks: \(error.message)", tasks: SwiftTasks.dump())
            }
        }
    }

    static func validate(_ request: ProfileRequest) throws(ProfileError) {
        guard ProfileRequest.rates.contains(request.rate) else {
            throw ProfileError(
                .invalidRate,
                "rate \(request.rate) Hz is outside \(ProfileRequest.rates.lowerBound)...\(ProfileRequest.rates.upperBound)",
                parameter: "rate")
        }
        guard request.duration > .zero, request.duration <= ProfileRequest.longestDuration else {
            throw ProfileError(
                .invalidDuration,
                "duration \(request.duration) is not within (0, \(ProfileRequest.longestDuration)]",
                parameter: "duration")
        }
    }

    static func interval(of request: ProfileRequest) -> UInt64 { 1_000_000_000 / UInt64(request.rate) }

    private static func makeSampler(signal: Int32) throws(ProfileError) -> StackSampler {
        do {
            return try StackSampler(signal: signal)
        } catch let error as Watchdog.StartError {
            let kind: ProfileError.Kind = error.kind == .tooManyWatchdogs ? .tooManySamplers : .signalUnavailable
            throw ProfileError(kind, error.message)
        } catch {
            throw ProfileError(.signalUnavailable, "\(error)")
        }
    }

    /// Runs `body` on a thread of Probe's own and waits for its result: the caller's thread (an
    /// event loop's, a pool's) neither samples nor is counted as a sampler. Probe's own threads (the
    /// profile server's) run it themselves: a thread a call took the next of malloc's arenas in turn
    /// and left its call's free memory there (+60 KB a goroutine dump, up to 16 arenas; 2026-12-05).
    private func onProbeThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        if ProbeThreads.contains(cprobe_gettid()) { return body() }
        let result = Handoff<T>()
        let done = DispatchSemaphore(value: 0)
        ProbeThreads.start(name: "probe-sampling") {
            let value = body()
            result.value.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.value.withLock { $0! }
    }
}

/// A result passed from Probe's thread to the waiting caller.
private final class Handoff<T: Sendable>: Sendable {
    let value = Mutex<T?>(nil)
}

/// Every thread's stack at one moment, symbolicated.
struct ThreadDump: Sendable {
    struct Thread: Sendable {
        var tid: Int32
        var name: String
        var state: String
        /// Innermost first; stand-ins (`[syscall read]`, `[not sampled: …]`) at address 0.
        var frames: [StackFrame]
        /// The Swift task it was running when sampled (its address), if any.
        var task: UInt? = nil
    }

    var threads: [Thread]
    /// Why the dump is empty or partial, if it is.
    var note: String?
    /// The Swift tasks, read after the threads.
    var tasks = TaskDump(groups: [])
}

/// A wall profile's ticks taken one at a time on the calling thread, for the benchmarks: what one
/// look at every thread of the process costs the sampling thread.
@_spi(Benchmarks) public final class ProfileTicks {
    private let sampling: ProcessSampling

    public init(rate: Int = 100) throws {
        let sampler = try StackSampler()
        sampling = ProcessSampling(sampler: sampler, interval: 1_000_000_000 / UInt64(rate))
    }

    public func tick() { sampling.tick() }

    /// Samples taken so far (failures not included).
    public var samplesTaken: Int { sampling.samplesTaken }
}
