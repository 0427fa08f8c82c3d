import CProbe
import Foundation
import PerfkitPprof
import ProbeRecords

/// One wall-mode profile while it is taken: every tick looks at every thread — a running one is
/// signalled for its stack, an off-CPU one unwound from `/proc` with its wait as the leaf. Lives on
/// Probe's profiling thread only; its `/proc` descriptors are closed when a thread disappears and at
/// the end. (cpu profiles are ``CPUTimerSampling``'s.)
final class ProcessSampling {
    /// A thread of the process as the profile knows it.
    private struct Tracked {
        var tid: Int32
        var name: String
        /// `/proc/self/task/<tid>/stat` and `…/syscall`, kept open: one `pread` a tick each.
        var statFD: Int32
        var syscallFD: Int32 = -1
        /// The latest wait unwound from `/proc` (its syscall line's bytes), its leaf and its stack:
        /// the same wait has the same stack.
        var lastWait: (bytes: [UInt8], leaf: String, stack: [UInt])?
        /// Read once: a thread's signal mask rarely changes (libdispatch workers block all).
        var blocksSignal: Bool?
        var alive = true
    }

    /// What one look at a thread found.
    enum Seen {
        case stack(state: UInt8, leaf: String?)
        case failed(ProcessProfiler.SampleFailure, state: UInt8)
        case skipped
        /// A signal is to be sent (``pending``): the tick sends several at once.
        case deferred
    }

    /// A thread to be signalled this tick, and what its sample will stand under.
    private struct Pending {
        var index: Int
        var state: UInt8
        var leaf: String?
    }

    /// Most requests out at once: each takes a sampling slot (32 in all, shared with watchdogs).
    static let fanOut = 8

    private let sampler: StackSampler
    /// The sampler's slot and the extra ones this profile holds, each with its buffer.
    private var slots: [Int32]
    private var buffers: [UnsafeMutablePointer<UInt>] = []
    private var requests: [UInt64]
    private var sent: [Int]
    private var pending: [Pending] = []
    private let interval: UInt64
    /// The sampling thread, never sampled (it is Probe's own, or a benchmark's).
    private let samplingThread = cprobe_gettid()
    /// Samples taken so far.
    var samplesTaken: Int { samples.taken }
    private var threads: [Tracked] = []
    private var indexByTID: [Int32: Int] = [:]
    /// `/proc/self/task`, listed each tick.
    private var listing = TaskListing()
    private var samples = ProfileSamples()
    /// The stalls known at this tick, and its time: the samples inside one are labelled `stall_id`.
    private var stalls: [StallWindows.Window] = []
    private var tickTime: UInt64 = 0
    private var ticks = 0
    private var missedTicks = 0
    /// Intervals the coming tick stands for: 1, more after ticks skipped behind a slow one, so a
    /// wall profile's values still add up to the time sampled.
    private var tickIntervals: UInt64 = 1
    private var startedAt: UInt64 = 0
    private var wallStart = Date()
    private var statBuffer = [UInt8](repeating: 0, count: 512)
    private var syscallBuffer = [UInt8](repeating: 0, count: 256)
    /// The stack the latest ``look(at:)`` found (a copy of the sampler's buffer, or a blocked
    /// thread's unwind).
    private var lastStack: [UInt] = []
    /// The Swift task the thread of the latest in-place sample ran (0 for none).
    private var lastTask: UInt = 0

    /// Only threads of these kinds are tracked (nil: all); the others are remembered in ``ignored``.
    /// Whether a thread, by its name, is sampled (the request's kinds and name prefixes).
    private let selects: @Sendable (_ name: String, _ tid: Int32) -> Bool
    private var ignored: Set<Int32> = []

    init(
        sampler: StackSampler, interval: UInt64,
        selects: @escaping @Sendable (_ name: String, _ tid: Int32) -> Bool = { _, _ in true }
    ) {
        self.selects = selects
        self.sampler = sampler
        self.interval = interval
        slots = [sampler.slot]
        while slots.count < Self.fanOut {
            let slot = cprobe_slot_acquire()
            if slot < 0 { break }
            slots.append(slot)
        }
        buffers = [sampler.buffer]
        for _ in 1..<slots.count { buffers.append(.allocate(capacity: Int(CPROBE_MAX_FRAMES))) }
        requests = [UInt64](repeating: 0, count: slots.count)
        sent = [Int](repeating: -1, count: slots.count)
    }

    deinit {
        for thread in threads { Self.close(thread) }
        for slot in slots.dropFirst() { cprobe_slot_release(slot) }
        for buffer in buffers.dropFirst() { buffer.deallocate() }
    }

    /// Samples every `interval` until `duration` has passed (true) or `isCancelled` (false).
    func run(for duration: Duration, isCancelled: () -> Bool) -> Bool {
        wallStart = Date()
        startedAt = cprobe_monotonic_ns()
        let end = startedAt + duration.nanoseconds
        refreshThreads()
        var next = startedAt + interval
        while true {
            // Sleep to the tick in steps of at most 50 ms, polling for cancellation.
            while true {
                if isCancelled() { return false }
                let now = cprobe_monotonic_ns()
                if now >= next || now >= end { break }
                let step = min(next, end) - now
                var request = timespec(
                    tv_sec: Int(min(step, 50_000_000) / 1_000_000_000),
                    tv_nsec: Int(min(step, 50_000_000) % 1_000_000_000))
                nanosleep(&request, nil)
            }
            if cprobe_monotonic_ns() >= end && next > end { return true }
            tick()
            let now = cprobe_monotonic_ns()
            next += interval
            if now > next {
                // Ticks that fell during a slow one are skipped, not taken late in a burst.
                let behind = (now - next) / interval + 1
                missedTicks += Int(behind)
                next += behind * interval
                tickIntervals = 1 + behind
            } else {
                tickIntervals = 1
            }
            if next > end && now >= end { return true }
        }
    }

    /// One look at every thread: what the sampling thread does each tick.
    func tick() {
        ticks += 1
        tickTime = cprobe_monotonic_ns()
        stalls = StallWindows.snapshot
        refreshThreads()
        pending.removeAll(keepingCapacity: true)
        for index in threads.indices where threads[index].alive {
            handle(look(at: index, deferringSignals: true), index: index)
        }
        // Requests go out to several threads, then their answers are collected: a thread that
        // waits for a CPU delays the tick by its wait once, not once per thread behind it.
        let timeout = min(50_000_000, max(interval, 5_000_000))
        var start = 0
        while start < pending.count {
            let batch = min(slots.count, pending.count - start)
            for slot in 0..<batch {
                let item = pending[start + slot]
                let result = cprobe_sample_send(
                    slots[slot], sampler.signal, threads[item.index].tid, Int32(CPROBE_UNWIND_FRAME_POINTERS),
                    &requests[slot])
                sent[slot] = Int(result)
                if result != Int32(CPROBE_SAMPLE_OK) { handle(seen(result, depth: 0, item), index: item.index) }
            }
            for slot in 0..<batch where sent[slot] == Int(CPROBE_SAMPLE_OK) {
                let item = pending[start + slot]
                var info = cprobe_sample_info()
                let result = cprobe_sample_collect(
                    slots[slot], requests[slot], timeout, buffers[slot], CPROBE_MAX_FRAMES, &info)
                if result == Int32(CPROBE_SAMPLE_OK), info.depth > 0 {
                    lastStack.removeAll(keepingCapacity: true)
                    lastStack.append(contentsOf: UnsafeBufferPointer(start: buffers[slot], count: Int(info.depth)))
                }
                handle(seen(result, depth: Int(info.depth), item), index: item.index)
            }
            start += batch
        }
    }

    /// What a request's result means; an answered one's stack is in `lastStack`.
    private func seen(_ result: Int32, depth: Int, _ item: Pending) -> Seen {
        switch result {
        case Int32(CPROBE_SAMPLE_OK):
            return depth > 0 ? .stack(state: item.state, leaf: item.leaf) : .failed(.unwindShort, state: item.state)
        case Int32(CPROBE_SAMPLE_SEND_FAILED):
            // The thread is gone, or the signal could not be queued (EAGAIN: the queue is full).
            guard ThreadInfo.exists(threads[item.index].tid) else {
                markGone(item.index)
                return .failed(.exited, state: item.state)
            }
            return .failed(.sendFailed, state: item.state)
        case Int32(CPROBE_SAMPLE_SLOT_BUSY):
            return .failed(.slotBusy, state: item.state)
        case Int32(CPROBE_SAMPLE_HANDLER_TAKEN):
            return .failed(.handlerTaken, state: item.state)
        default:
            return .failed(.noAnswer, state: item.state)
        }
    }

    private func handle(_ seen: Seen, index: Int) {
        switch seen {
        case .skipped, .deferred:
            return
        case .stack(_, let leaf):
            let stall = stalls.isEmpty ? nil : stalls.stall(of: threads[index].tid, at: tickTime)
            samples.took(span, on: ProfileSamples.Key(thread: index, stack: lastStack, leaf: leaf, stall: stall))
        case .failed(let failure, _):
            samples.failed(failure, value: span, thread: index)
        }
    }

    /// What this tick's sample of a thread stands for: the interval, times the ticks it covers.
    private var span: Int64 { Int64(interval * tickIntervals) }

    /// Samples the thread at `index`, leaving its stack in `lastStack`; a signal
    /// is only queued in ``pending`` when `deferringSignals`.
    private func look(at index: Int, deferringSignals: Bool = false) -> Seen {
        let tid = threads[index].tid
        guard let state = readState(index) else {
            markGone(index)
            return .failed(.exited, state: UInt8(ascii: "?"))
        }
        switch state {
        case UInt8(ascii: "R"):
            return signalSample(index, state: state, leaf: nil, deferring: deferringSignals)
        case UInt8(ascii: "Z"), UInt8(ascii: "X"):
            return .skipped
        default:
            break
        }
        // Off CPU: the wait is read from /proc, the stack unwound from the stack memory where it
        // can be; a signal would cut a sleep short (EINTR).
        let count = readSyscallBytes(index)
        // Still in the wait last unwound (the same bytes: number, arguments, stack pointer, pc):
        // the same stack, and nothing parsed or allocated.
        if let last = threads[index].lastWait, count > 0, last.bytes.elementsEqual(syscallBuffer[..<count]) {
            lastStack = last.stack
            return .stack(state: state, leaf: last.leaf)
        }
        let line =
            count > 0
            ? String(decoding: syscallBuffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            : "running"
        if line == "running" { return signalSample(index, state: state, leaf: nil, deferring: deferringSignals) }
        let name = ThreadInfo.syscallName(syscallLine: line)
        let leaf = name.map { "[syscall \($0)]" } ?? "[off-cpu \(Character(UnicodeScalar(state)))]"
        if let stack = BlockedThreadStack.unwind(tid: tid, syscallLine: line) {
            threads[index].lastWait = (Array(syscallBuffer[..<count]), leaf, stack)
            lastStack = stack
            return .stack(state: state, leaf: leaf)
        }
        threads[index].lastWait = nil
        if ThreadInfo.interruptibleSleep(syscallLine: line) != nil {
            // Not signalled (EINTR): the wait alone stands, its stack counted as cut short.
            samples.counted(.unwindShort)
            lastStack = []
            return .stack(state: state, leaf: leaf)
        }
        return signalSample(index, state: state, leaf: leaf, deferring: deferringSignals)
    }

    private func signalSample(_ index: Int, state: UInt8, leaf: String?, deferring: Bool) -> Seen {
        let tid = threads[index].tid
        let blocked = threads[index].blocksSignal ?? ThreadInfo.blocks(signal: sampler.signal, tid: tid)
        threads[index].blocksSignal = blocked
        if blocked { return .failed(.signalBlocked, state: state) }
        if deferring {
            pending.append(Pending(index: index, state: state, leaf: leaf))
            return .deferred
        }
        let timeout = min(50_000_000, max(interval, 5_000_000))
        let (result, depth, task) = sampler.sampleInPlace(threadID: tid, timeoutNanoseconds: timeout)
        lastTask = task
        switch result {
        case Int32(CPROBE_SAMPLE_OK):
            guard depth > 0 else { return .failed(.unwindShort, state: state) }
            lastStack.removeAll(keepingCapacity: true)
            lastStack.append(contentsOf: UnsafeBufferPointer(start: sampler.buffer, count: depth))
            return .stack(state: state, leaf: leaf)
        case Int32(CPROBE_SAMPLE_SEND_FAILED):
            markGone(index)
            return .failed(.exited, state: state)
        case Int32(CPROBE_SAMPLE_SLOT_BUSY):
            return .failed(.slotBusy, state: state)
        case Int32(CPROBE_SAMPLE_HANDLER_TAKEN):
            return .failed(.handlerTaken, state: state)
        default:
            return .failed(.noAnswer, state: state)
        }
    }

    // MARK: threads

    /// Lists `/proc/self/task`: new threads are tracked (named once), vanished ones closed.
    private func refreshThreads() {
        listing.refresh()
        let own = ProbeThreads.allKnown
        for tid in listing.threads
        where indexByTID[tid] == nil && tid != samplingThread && own?.contains(tid) == false && !ignored.contains(tid) {
            let name = CooperativePoolThreads.name(of: tid) ?? "?"
            if !selects(name, tid) {
                ignored.insert(tid)
                continue
            }
            let fd = open("/proc/self/task/\(tid)/stat", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            indexByTID[tid] = threads.count
            threads.append(Tracked(tid: tid, name: name, statFD: fd))
        }
        // A thread that ended fails its `stat` read and is closed then; this catches the rest.
        if ticks % 16 == 0 {
            let present = Set(listing.threads)
            for index in threads.indices where threads[index].alive && !present.contains(threads[index].tid) {
                markGone(index)
            }
        }
    }

    private func markGone(_ index: Int) {
        guard threads[index].alive else { return }
        Self.close(threads[index])
        threads[index].alive = false
        threads[index].statFD = -1
        threads[index].syscallFD = -1
        indexByTID[threads[index].tid] = nil
    }

    private static func close(_ thread: Tracked) {
        if thread.statFD >= 0 { Glibc.close(thread.statFD) }
        if thread.syscallFD >= 0 { Glibc.close(thread.syscallFD) }
    }

    /// The scheduler state letter from the kept `stat` descriptor, or nil once the thread is gone.
    private func readState(_ index: Int) -> UInt8? {
        let fd = threads[index].statFD
        let count = statBuffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, $0.count, 0) }
        guard count > 0 else { return nil }
        // The name is in parentheses and may hold any byte: the state follows the last ") ".
        var index = count - 1
        while index > 0, statBuffer[index] != UInt8(ascii: ")") { index -= 1 }
        return index + 2 < count ? statBuffer[index + 2] : nil
    }

    /// Reads the thread's `/proc/…/syscall` line into `syscallBuffer`: its length, 0 when unreadable.
    private func readSyscallBytes(_ index: Int) -> Int {
        if threads[index].syscallFD < 0 {
            threads[index].syscallFD = open("/proc/self/task/\(threads[index].tid)/syscall", O_RDONLY | O_CLOEXEC)
        }
        let fd = threads[index].syscallFD
        guard fd >= 0 else { return 0 }
        return max(0, syscallBuffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, $0.count, 0) })
    }

    // MARK: output

    /// The profile so far, symbolicated and encoded.
    func finish(symbolicator: Symbolicator) -> ProcessProfiler.Profile {
        let rate = interval > 0 ? 1_000_000_000 / interval : 0
        return samples.profile(
            mode: .wall, interval: interval, threads: threads.map { .init(tid: $0.tid, name: $0.name) },
            start: wallStart, durationNanos: cprobe_monotonic_ns().saturatingSubtract(startedAt),
            summary:
                "probe process profile: mode=wall rate=\(rate)Hz ticks=\(ticks) missed_ticks=\(missedTicks) threads=\(threads.count)",
            symbolicator: symbolicator)
    }

    /// Every thread's stack now (wall mode's look), symbolicated.
    func dump(symbolicator: Symbolicator) -> ThreadDump {
        refreshThreads()
        var result: [ThreadDump.Thread] = []
        for index in threads.indices where threads[index].alive {
            lastTask = 0
            var frames: [StackFrame]
            var stateLetter = UInt8(ascii: "?")
            switch look(at: index) {
            case .skipped, .deferred:
                continue
            case .stack(let state, let leaf):
                stateLetter = state
                frames = symbolicator.symbolicate(stack: lastStack)
                if let leaf { frames.insert(StackFrame(address: 0, symbol: leaf), at: 0) }
            case .failed(let failure, let state):
                stateLetter = state
                frames = [StackFrame(address: 0, symbol: "[not sampled: \(failure.rawValue)]")]
            }
            result.append(
                ThreadDump.Thread(
                    tid: threads[index].tid, name: threads[index].name,
                    state: String(Character(UnicodeScalar(stateLetter))), frames: frames,
                    task: lastTask == 0 ? nil : lastTask))
        }
        let failed = samples.failures.isEmpty ? nil : ProfileSamples.failureComment(samples.failures)
        return ThreadDump(threads: result, note: failed)
    }
}
