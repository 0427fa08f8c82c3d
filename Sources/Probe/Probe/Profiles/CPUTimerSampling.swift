import CProbe
import Foundation

/// A timer on each thread's own CPU clock that signals that thread after every `interval` of CPU
/// it uses, so a sample lands where the time went (as perf's `cpu-clock` and Go's profiler); the
/// handler unwinds into a ring that ``drain(_:)`` empties. Threads that cannot have a timer (they
/// block the signal) are untimed: their CPU time is read from their clock instead. Used from one
/// thread of Probe's. Why not ticks: docs/probe-in-a-server.md, "Whole-process profiles against perf".
final class CPUTimers {
    /// A thread of the process as the timers know it.
    struct Tracked {
        var tid: Int32
        var name: String
        /// Its CPU-clock timer (the kernel's id); nil when it has none.
        fileprivate var timer: Int32?
        /// Why it has no timer now; nil while it has one.
        var untimed: ProcessProfiler.SampleFailure?
        /// Why it last had none, kept once it got one (a thread that unblocked the signal).
        var untimedReason: ProcessProfiler.SampleFailure?
        /// CPU time it used without a timer in periods now closed, and where the open one began.
        var untimedNanoseconds: Int64 = 0
        var untimedSince: Int64
        var cpuLatest: Int64
        var alive = true
        /// When a thread that blocks the signal is next asked whether it still does (monotonic ns),
        /// and the wait after that: 100 ms, doubling to 32 s while it keeps blocking it.
        var nextMaskCheck: UInt64 = 0
        var maskCheckBackoff: UInt64 = 100_000_000

        /// The CPU time its samples do not hold: used while it had no timer.
        var unsampledNanoseconds: Int64 {
            untimedNanoseconds + (untimed != nil ? max(0, cpuLatest - untimedSince) : 0)
        }
    }

    let signal: Int32
    let interval: UInt64
    private let set: Int32
    /// Whether a thread, by its name, is sampled (the request's kinds and name prefixes).
    private let selects: @Sendable (_ name: String, _ tid: Int32) -> Bool
    /// The thread that drains, never sampled.
    private let drainingThread = cprobe_gettid()
    /// Every thread tracked so far, by the index its samples carry.
    private(set) var threads: [Tracked] = []
    private var indexByTID: [Int32: Int] = [:]
    private var ignored: Set<Int32> = []
    private var listing = TaskListing()
    private let drained = UnsafeMutablePointer<cprobe_timer_sample>.allocate(capacity: drainBatch)
    private var handlerInstalled = false
    /// Indices of ended threads whose samples are all consumed: a new thread takes one first.
    private var freeIndices: [Int] = []
    /// Threads that got a timer.
    private(set) var timedThreads = 0
    /// New threads left out because every index was taken (``CPROBE_TIMER_THREADS`` alive at once).
    private(set) var untrackable = 0
    /// Another handler replaced Probe's for the signal: every timer was deleted, none is armed again.
    private(set) var handlerTaken = false
    /// Threads tracked, armed or retired so far: a caller tells from it that the set changed.
    private(set) var changes = 0

    /// Samples moved out of the ring per `cprobe_timer_drain` call.
    static let drainBatch = 64

    /// Claims a timer set and installs the handler for `signal`.
    init(
        signal: Int32, interval: UInt64,
        selects: @escaping @Sendable (_ name: String, _ tid: Int32) -> Bool = { _, _ in true }
    ) throws(ProcessProfiler.ProfileError) {
        self.signal = signal
        self.interval = interval
        self.selects = selects
        // In the background (a few hundred ms the first time): until then samples use libunwind.
        FramePointerCode.publishInBackground()
        do {
            set = try Self.claimSet(signal: signal)
        } catch {
            drained.deallocate()
            throw error
        }
        handlerInstalled = true
    }

    /// Claims a timer set and installs the handler for `signal`; releases the set when the handler
    /// cannot be installed.
    static func claimSet(signal: Int32) throws(ProcessProfiler.ProfileError) -> Int32 {
        let set = cprobe_timer_set_acquire()
        guard set >= 0 else {
            throw ProcessProfiler.ProfileError(
                .tooManySamplers, "every CPU-timer set is taken (at most \(CPROBE_TIMER_SETS) at once)")
        }
        let error = cprobe_install_handler(signal)
        guard error == 0 else {
            cprobe_timer_set_release(set)
            throw ProcessProfiler.ProfileError(
                .signalUnavailable,
                "cannot install the handler for signal \(signal): \(String(cString: strerror(error)))")
        }
        return set
    }

    deinit {
        stop()
        cprobe_timer_set_release(set)
        if handlerInstalled { Self.uninstall(signal: signal, threads: threads.map(\.tid)) }
        drained.deallocate()
    }

    /// How often to drain so the ring holds a quarter of its samples at `interval` on every CPU:
    /// between 10 and 100 ms.
    static func drainPeriod(interval: UInt64) -> UInt64 {
        let cpus = UInt64(max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let fill = interval * UInt64(CPROBE_TIMER_RING) / 4 / cpus
        return min(100_000_000, max(10_000_000, fill))
    }

    /// Passes every sample in the ring to `sink`, oldest first: its thread's index, its stack
    /// (innermost first; empty when the unwind gave nothing), its expirations and its time.
    func drain(_ sink: (_ thread: Int, _ stack: UnsafeBufferPointer<UInt>, _ expirations: Int, _ time: UInt64) -> Void)
    {
        Self.drain(set: set, scratch: drained, sink)
    }

    /// The C ring's set: one drainer at a time (``drain(set:scratch:_:)`` under the caller's lock).
    var timerSet: Int32 { self.set }

    /// ``drain(_:)`` for a drainer that is not this object's thread: `scratch` holds ``drainBatch`` samples.
    static func drain(
        set: Int32, scratch drained: UnsafeMutablePointer<cprobe_timer_sample>,
        _ sink: (_ thread: Int, _ stack: UnsafeBufferPointer<UInt>, _ expirations: Int, _ time: UInt64) -> Void
    ) {
        while true {
            let count = Int(cprobe_timer_drain(set, drained, Int32(Self.drainBatch)))
            for index in 0..<count {
                let sample = drained + index
                let depth = Int(sample.pointee.depth)
                withUnsafeBytes(of: &sample.pointee.pcs) { raw in
                    let pcs = raw.bindMemory(to: UInt.self)
                    sink(
                        Int(sample.pointee.thread), UnsafeBufferPointer(rebasing: pcs.prefix(depth)),
                        Int(sample.pointee.expirations), sample.pointee.time_ns)
                }
            }
            if count < Self.drainBatch { return }
        }
    }

    /// Samples lost to a full ring so far, and the expirations they stood for.
    var dropped: (samples: UInt64, expirations: UInt64) {
        var samples: UInt64 = 0
        var expirations: UInt64 = 0
        cprobe_timer_dropped(set, &samples, &expirations)
        return (samples, expirations)
    }

    /// Lists `/proc/self/task`: a new thread gets a timer (or is tracked untimed), an ended one
    /// loses it (`retired` hears of it); untimed threads' CPU time is read each time.
    func refreshThreads(retired: (Int) -> Void = { _ in }) {
        // The signal is someone else's now: their handler must not get timer signals it does not know.
        if handlerTaken || cprobe_handler_taken(signal) != 0 {
            if !handlerTaken { stop() }
            handlerTaken = true
            return
        }
        listing.refresh()
        let present = listing.threads
        let own = ProbeThreads.allKnown
        for tid in present
        where indexByTID[tid] == nil && tid != drainingThread && own?.contains(tid) == false && !ignored.contains(tid) {
            let name = CooperativePoolThreads.name(of: tid) ?? "?"
            if !selects(name, tid) {
                ignored.insert(tid)
                continue
            }
            track(tid: tid, name: name)
        }
        let seen = Set(present)
        for index in threads.indices where threads[index].alive {
            if !seen.contains(threads[index].tid) {
                retire(index)
                retired(index)
            } else if let reason = threads[index].untimed {
                let before = threads[index].cpuLatest
                readCPU(index)
                // The watchdogs unblock the signal on the threads they watch (event loops started
                // from a pool thread inherit a mask that blocks it): such a thread gets its timer now.
                // Only a thread that ran can have unblocked it: an idle one's `status` is not read, nor
                // a busy one's each time (a pool worker that never runs Probe's code keeps its mask).
                let now = cprobe_monotonic_ns()
                if reason == .signalBlocked, threads[index].cpuLatest != before, now >= threads[index].nextMaskCheck {
                    if ThreadInfo.blocks(signal: signal, tid: threads[index].tid) {
                        threads[index].nextMaskCheck = now + threads[index].maskCheckBackoff
                        threads[index].maskCheckBackoff = min(threads[index].maskCheckBackoff * 2, 32_000_000_000)
                    } else {
                        arm(index)
                    }
                }
            }
        }
    }

    private func track(tid: Int32, name: String) {
        guard let cpu = ThreadInfo.cpuNanoseconds(of: tid) else { return }  // already gone
        let index = freeIndices.popLast() ?? threads.count
        guard index < CPROBE_TIMER_THREADS else {
            ignored.insert(tid)
            untrackable += 1
            return
        }
        // A timer's signal to a thread that blocks it would wait, pending: none until it unblocks.
        let blocked = ThreadInfo.blocks(signal: signal, tid: tid)
        let thread = Tracked(
            tid: tid, name: name, untimed: .signalBlocked, untimedReason: blocked ? .signalBlocked : nil,
            untimedSince: cpu, cpuLatest: cpu)
        indexByTID[tid] = index
        if index == threads.count { threads.append(thread) } else { threads[index] = thread }
        changes += 1
        if !blocked { arm(index) }
    }

    /// Gives the untimed thread at `index` its timer; one that ended meanwhile is left to `retire`,
    /// one the kernel refuses (EAGAIN: no memory for another timer) stays untimed, counted.
    private func arm(_ index: Int) {
        var timer: Int32 = -1
        let error = cprobe_timer_arm(set, signal, threads[index].tid, Int32(index), interval, &timer)
        guard error == 0 else {
            if error != ESRCH && error != EINVAL {
                threads[index].untimed = .sendFailed
                threads[index].untimedReason = .sendFailed
            }
            return
        }
        readCPU(index)
        threads[index].untimedNanoseconds += max(0, threads[index].cpuLatest - threads[index].untimedSince)
        threads[index].untimed = nil
        threads[index].timer = timer
        timedThreads += 1
        changes += 1
    }

    /// Gives an ended thread's index to the next new thread: its samples must all be consumed
    /// (drained and no longer kept), or they would be taken for the new thread's.
    func recycle(_ index: Int) {
        guard threads.indices.contains(index), !threads[index].alive else { return }
        freeIndices.append(index)
    }

    private func retire(_ index: Int) {
        guard threads[index].alive else { return }
        threads[index].alive = false
        changes += 1
        indexByTID[threads[index].tid] = nil
        if let timer = threads[index].timer {
            cprobe_timer_disarm(timer)
            threads[index].timer = nil
        }
    }

    private func readCPU(_ index: Int) {
        if let cpu = ThreadInfo.cpuNanoseconds(of: threads[index].tid) { threads[index].cpuLatest = cpu }
    }

    /// Deletes every timer (samples already taken stay in the ring) and reads untimed threads'
    /// CPU time a last time.
    func stop() {
        for index in threads.indices where threads[index].alive {
            if let timer = threads[index].timer {
                cprobe_timer_disarm(timer)
                threads[index].timer = nil
            }
            if threads[index].untimed != nil { readCPU(index) }
        }
    }

    /// Drops this user's reference to the handler once no timer signal is still pending on a
    /// thread it armed (one that blocked the signal for a moment): a signal arriving with the
    /// default action restored would end the process, so the reference is kept if one stays pending.
    static func uninstall(signal: Int32, threads: [Int32]) {
        for _ in 0..<100 {
            if !threads.contains(where: { ThreadInfo.hasPending(signal: signal, tid: $0) }) {
                cprobe_uninstall_handler(signal)
                return
            }
            usleep(1000)
        }
    }
}

/// One cpu-mode profile while it is taken: ``CPUTimers`` drained into ``ProfileSamples``; each
/// sample stands for its expirations times the interval of its thread's CPU time.
final class CPUTimerSampling {
    private let timers: CPUTimers
    private var samples = ProfileSamples()
    private var startedAt: UInt64 = 0
    private var wallStart = Date()
    /// New threads get a timer within this long; ended ones lose theirs.
    static let threadRefresh: UInt64 = 100_000_000

    init(
        signal: Int32, interval: UInt64,
        selects: @escaping @Sendable (_ name: String, _ tid: Int32) -> Bool = { _, _ in true }
    ) throws(ProcessProfiler.ProfileError) {
        timers = try CPUTimers(signal: signal, interval: interval, selects: selects)
    }

    /// Samples until `duration` has passed (true) or `isCancelled` (false).
    func run(for duration: Duration, isCancelled: () -> Bool) -> Bool {
        wallStart = Date()
        startedAt = cprobe_monotonic_ns()
        let end = startedAt + duration.nanoseconds
        timers.refreshThreads()
        let drainEvery = CPUTimers.drainPeriod(interval: timers.interval)
        var nextRefresh = startedAt + Self.threadRefresh
        while true {
            if isCancelled() { return false }
            let now = cprobe_monotonic_ns()
            if now >= end { break }
            if now >= nextRefresh {
                timers.refreshThreads()
                nextRefresh = now + Self.threadRefresh
            }
            drain()
            let step = min(drainEvery, end - now, nextRefresh - now)
            var request = timespec(tv_sec: Int(step / 1_000_000_000), tv_nsec: Int(step % 1_000_000_000))
            nanosleep(&request, nil)
        }
        timers.stop()
        drain()
        return true
    }

    private func drain() {
        let interval = Int64(timers.interval)
        let stalls = StallWindows.snapshot
        let threads = timers.threads
        timers.drain { thread, stack, expirations, time in
            let value = interval * Int64(expirations)
            if stack.isEmpty {
                samples.failed(.unwindShort, count: expirations, value: value, thread: thread)
            } else {
                let stall = stalls.isEmpty ? nil : stalls.stall(of: threads[thread].tid, at: time)
                samples.took(
                    value, samples: Int64(expirations),
                    on: ProfileSamples.Key(thread: thread, stack: Array(stack), leaf: nil, stall: stall))
            }
        }
    }

    /// The profile, symbolicated and encoded.
    func finish(symbolicator: Symbolicator) -> ProcessProfiler.Profile {
        let interval = timers.interval
        for (index, thread) in timers.threads.enumerated() {
            guard let failure = thread.untimedReason else { continue }
            let used = thread.unsampledNanoseconds
            samples.failed(failure, count: Int(used / Int64(interval)), value: used, thread: index)
        }
        let lost = timers.dropped
        if lost.samples > 0 {
            samples.failed(
                .ringFull, count: Int(lost.expirations), value: Int64(lost.expirations * interval),
                thread: ProfileSamples.unknownThread)
        }
        if timers.handlerTaken {
            samples.failed(.handlerTaken, count: 1, value: 0, thread: ProfileSamples.unknownThread)
        }
        let threads = timers.threads
        return samples.profile(
            mode: .cpu, interval: interval, threads: threads.map { .init(tid: $0.tid, name: $0.name) },
            start: wallStart, durationNanos: cprobe_monotonic_ns().saturatingSubtract(startedAt),
            summary:
                "probe process profile: mode=cpu rate=\(1_000_000_000 / interval)Hz sampler=cpu-timers threads=\(threads.count) timed=\(timers.timedThreads)",
            symbolicator: symbolicator)
    }
}

/// The cpu sampler's path on the calling thread, for the benchmarks: the timer's signal (sent by
/// the thread to itself, as the kernel sends it when the CPU clock expires), the handler's unwind
/// into the ring, and the drain: what one sample costs, without waiting on a clock.
@_spi(Benchmarks) public final class CPUTimerSamples {
    private let signal: Int32
    private let set: Int32
    private let drained = UnsafeMutablePointer<cprobe_timer_sample>.allocate(capacity: 1)

    public init(signal: Int32 = WatchdogConfiguration.defaultSignal) throws {
        self.signal = signal
        FramePointerCode.publish()
        set = cprobe_timer_set_acquire()
        guard set >= 0 else { throw ProcessProfiler.ProfileError(.tooManySamplers, "every CPU-timer set is taken") }
        guard cprobe_install_handler(signal) == 0 else {
            cprobe_timer_set_release(set)
            throw ProcessProfiler.ProfileError(.signalUnavailable, "cannot install the handler for signal \(signal)")
        }
        _ = cprobe_unblock_signal(signal)
    }

    deinit {
        cprobe_timer_set_release(set)
        cprobe_uninstall_handler(signal)
        drained.deallocate()
    }

    /// Takes `count` samples of the calling thread; returns the frames of the last one.
    @discardableResult public func sample(_ count: Int) -> Int {
        var depth = 0
        for _ in 0..<count {
            guard cprobe_timer_signal_self(set, signal, 0) == 0 else { return 0 }
            if cprobe_timer_drain(set, drained, 1) == 1 { depth = Int(drained.pointee.depth) }
        }
        return depth
    }
}
