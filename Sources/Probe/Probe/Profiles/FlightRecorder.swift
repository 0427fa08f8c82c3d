import CProbe
import Dispatch
import Foundation
import PerfkitPprof
import ProbeRecords
import Synchronization

/// Keeps the recent past: every thread's CPU samples at a low rate (CPU-clock timers, as a cpu
/// profile's), in a ring of fixed size, so that each stall record gets a ``StallRecord/before``
/// (what the thread computed on its way into the stall) and `/debug/pprof/flight` dumps the ring.
///
/// A thread of Probe's (`probe-flight`) drains the timers' samples and looks for new threads every
/// second (every 100 ms for 3 s after threads came or went, sooner on many CPUs, and a stall's record
/// drains first); an idle process is never signalled (no CPU used, no sample). One runs in
/// a process at a time, and the watchdogs and ``ProfileServer`` find it there. Costs:
/// Sources/Probe/Probe/README.md, "Flight recorder".
public final class FlightRecorder: Sendable {
    /// The recorder running in this process, which stall records and `/debug/pprof/flight` read.
    static var running: FlightRecorder? { current.withLock { $0 } }
    private static let current = Mutex<FlightRecorder?>(nil)

    public struct Configuration: Sendable, Equatable {
        /// Samples a second of each thread's CPU time: 19 (not 20) avoids lockstep with periodic work.
        public var rate: Int = 19
        /// The ring's size, mapped and resident from start (about 800 bytes a sample).
        public var capacityBytes: Int = 6 << 20
        /// Samples older than this are dropped even when the ring has room.
        public var keep: Duration = .seconds(60)
        /// How far before a stall's start its ``StallRecord/before`` reaches.
        public var leadUp: Duration = .seconds(5)
        /// The sampling signal (the watchdogs' by default: the handler is shared).
        public var signal: Int32 = WatchdogConfiguration.defaultSignal

        public init() {}
    }

    public let configuration: Configuration
    private let ring: Mutex<FlightRing>
    private let control = Mutex<Control>(Control())

    private struct Control {
        var running = false
        var stopRequested = false
        /// Signalled by `stop` to cut the thread's wait short.
        var wake: DispatchSemaphore?
        /// Signalled by the thread when it ends.
        var finished: DispatchSemaphore?
    }

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        ring = Mutex(FlightRing(bytes: configuration.capacityBytes))
    }

    deinit { stop() }

    public var isRunning: Bool { control.withLock { $0.running } }

    /// Starts recording on a thread of Probe's; throws ``ProcessProfiler/ProfileError`` when the
    /// rate is outside ``ProfileRequest/rates``, the capacity or `keep` is not positive or `leadUp`
    /// negative (`invalidConfiguration`, the parameter named), another recorder runs (`busy`), the signal's
    /// handler cannot be installed or every CPU-timer set is taken. Starting a running recorder
    /// does nothing. The process's threads are timed when it returns; threads born later within 100 ms.
    public func start() throws(ProcessProfiler.ProfileError) {
        guard ProfileRequest.rates.contains(configuration.rate) else {
            throw ProcessProfiler.ProfileError(
                .invalidRate, "flight recorder rate \(configuration.rate) Hz is outside \(ProfileRequest.rates)",
                parameter: "rate")
        }
        for (parameter, valid, rule) in [
            ("capacityBytes", configuration.capacityBytes > 0, "more than 0"),
            ("keep", configuration.keep > .zero, "more than 0"), ("leadUp", configuration.leadUp >= .zero, "0 or more"),
        ] where !valid {
            throw ProcessProfiler.ProfileError(
                .invalidConfiguration, "flight recorder \(parameter) must be \(rule)", parameter: parameter)
        }
        let wake = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let claimed = control.withLock { control in
            if control.running { return false }
            control = Control(running: true, stopRequested: false, wake: wake, finished: finished)
            return true
        }
        guard claimed else { return }
        let alone = Self.current.withLock { current in
            if current != nil { return false }
            current = self
            return true
        }
        guard alone else {
            control.withLock { $0 = Control() }
            throw ProcessProfiler.ProfileError(.busy, "another flight recorder is running in this process")
        }
        let started = Mutex<Result<Void, ProcessProfiler.ProfileError>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let configuration = configuration
        ProbeThreads.start(name: "probe-flight") { [self] in
            // The timers are gone (deleted, the handler's reference dropped) before `stop` returns.
            do {
                let timers: CPUTimers
                do throws(ProcessProfiler.ProfileError) {
                    timers = try CPUTimers(
                        signal: configuration.signal, interval: 1_000_000_000 / UInt64(configuration.rate))
                } catch {
                    started.withLock { $0 = .failure(error) }
                    ready.signal()
                    finished.signal()
                    return
                }
                // The threads there now get their timers before `start()` returns: what they compute
                // from then on is recorded however late this thread runs next (on a loaded machine a
                // stall's lead-up held 9 of its ~29 samples, `make test` under two spinners, 2026-12-07).
                timers.refreshThreads()
                started.withLock { $0 = .success(()) }
                ready.signal()
                record(with: timers, wake: wake)
            }
            finished.signal()
        }
        ready.wait()
        if case .failure(let error) = started.withLock({ $0 })! {
            finished.wait()
            control.withLock { $0 = Control() }
            Self.current.withLock { $0 = nil }
            throw error
        }
    }

    /// Stops recording and waits for the thread to end; the ring keeps what it holds.
    public func stop() {
        let semaphores = control.withLock { control -> (wake: DispatchSemaphore, finished: DispatchSemaphore)? in
            guard control.running, let wake = control.wake, let finished = control.finished else { return nil }
            control.stopRequested = true
            return (wake, finished)
        }
        guard let semaphores else { return }
        semaphores.wake.signal()
        semaphores.finished.wait()
        control.withLock { $0 = Control() }
        Self.current.withLock { current in
            if current === self { current = nil }
        }
    }

    /// The recording loop: every second new threads get timers and the timers' samples go into the
    /// ring (sooner when the C ring could fill first: many CPUs). The drain happens under the ring's
    /// lock, so a stall's record drains first and misses no recent sample.
    private func record(with timers: CPUTimers, wake: DispatchSemaphore) {
        let keep = configuration.keep.nanoseconds
        let period = min(1_000_000_000, 25 * CPUTimers.drainPeriod(interval: timers.interval))
        // While threads come and go (a service starting, a pool growing), new ones get their timer
        // within 100 ms rather than a second: for 3 s after each change.
        var changes = -1
        var changedAt: UInt64 = 0
        var retiredAt: [(index: Int, at: UInt64)] = []
        let set = timers.timerSet
        ring.withLock { $0.attach(timerSet: set) }
        while !control.withLock({ $0.stopRequested }) {
            let now = cprobe_monotonic_ns()
            timers.refreshThreads { retiredAt.append(($0, now)) }
            if timers.changes != changes {
                changes = timers.changes
                changedAt = now
            }
            let names = timers.threads.map { ProfileSamples.Thread(tid: $0.tid, name: $0.name) }
            let oldest = ring.withLock { ring in
                ring.drainTimers()
                ring.name(names, untimed: timers.threads.filter { $0.alive && $0.untimed != nil }.count)
                ring.forget(olderThan: now.saturatingSubtract(keep))
                return ring.oldestTime ?? now
            }
            // An ended thread's index is given again once none of its samples is left.
            retiredAt.removeAll { entry in
                guard entry.at < oldest else { return false }
                timers.recycle(entry.index)
                return true
            }
            let busy = now - changedAt < 3_000_000_000
            _ = wake.wait(timeout: .now() + .nanoseconds(Int(busy ? min(period, 100_000_000) : period)))
        }
        timers.stop()
        ring.withLock { ring in
            ring.drainTimers()
            ring.attach(timerSet: -1)
        }
    }

    /// The ring as a cpu profile (pprof, not compressed): every sample kept, labelled by thread.
    public func profile() -> Data {
        let interval = 1_000_000_000 / UInt64(configuration.rate)
        let now = cprobe_monotonic_ns()
        // Copied under the lock, symbolicated after it: the recorder's thread never waits on symbols.
        let stalls = StallWindows.snapshot
        let (samples, threads, count, slots, oldest, untimed) = ring.withLock { ring in
            var samples = ProfileSamples()
            let threads = ring.threads
            ring.forEach { thread, stack, expirations, time in
                let tid = threads.indices.contains(thread) ? threads[thread].tid : 0
                samples.took(
                    Int64(interval) * Int64(expirations), samples: Int64(expirations),
                    on: ProfileSamples.Key(
                        thread: thread, stack: Array(stack), leaf: nil,
                        stall: stalls.isEmpty ? nil : stalls.stall(of: tid, at: time)))
            }
            return (samples, ring.threads, ring.count, ring.slots, ring.oldestTime, ring.untimedThreads)
        }
        let span = oldest.map { now.saturatingSubtract($0) } ?? 0
        return samples.profile(
            mode: .cpu, interval: interval, threads: threads, start: Date().addingTimeInterval(-Double(span) / 1e9),
            durationNanos: span,
            summary:
                "probe flight recorder: rate=\(configuration.rate)Hz samples=\(count) capacity=\(slots) window=\(span / 1_000_000)ms untimed_threads=\(untimed)",
            symbolicator: .shared
        ).pprof
    }

    /// The samples of `threads` from ``Configuration/leadUp`` before `stallStart` until `until` (the
    /// record's time; monotonic ns), as a ``StallLeadUp``; nil when the ring holds none. Samples of
    /// the last ~100 ms may still be in the timers' ring, not yet drained.
    func leadUp(threads: Set<Int32>, stallStart: UInt64, until: UInt64, symbolicator: Symbolicator) -> StallLeadUp? {
        let from = stallStart.saturatingSubtract(configuration.leadUp.nanoseconds)
        var counts: [[UInt]: Int] = [:]
        var total = 0
        ring.withLock { ring in
            ring.drainTimers()
            let tids = ring.threads
            ring.forEach { thread, stack, expirations, time in
                guard time >= from, time <= until, tids.indices.contains(thread), threads.contains(tids[thread].tid)
                else { return }
                counts[Array(stack), default: 0] += expirations
                total += expirations
            }
        }
        guard total > 0 else { return nil }
        let stacks: [StallBuilder.WeightedStack] = counts.map { (symbolicator.symbolicate(stack: $0.key), $0.value) }
        return StallLeadUp(
            fromNanoseconds: -Double(stallStart - from), toNanoseconds: Double(until.saturatingSubtract(stallStart)),
            rate: configuration.rate, sampleCount: total, callTree: StallBuilder.callTree(stacks),
            topStack: StallBuilder.mostFrequent(stacks))
    }
}

/// The flight recorder's samples: fixed slots (time, thread, expirations, up to ``maxFrames``
/// innermost frames) in memory reserved once, the oldest overwritten first.
struct FlightRing: ~Copyable {
    /// Frames kept a sample: deeper stacks lose their outermost frames (thread start, main).
    static let maxFrames = 96
    private static let slotWords = 2 + maxFrames

    let slots: Int
    private let words: UnsafeMutablePointer<UInt>
    /// The ring's own mapping's size in bytes (0: from malloc, when mmap failed).
    private let mappedBytes: Int
    /// Samples written since the start, and the first one still kept.
    private var head = 0
    private var tail = 0
    /// Each thread index's id and name, as the timers last named it.
    private(set) var threads: [ProfileSamples.Thread] = []
    /// Live threads that have no timer (they block the signal): never in the ring.
    private(set) var untimedThreads = 0
    /// The running recorder's timer set (-1 when stopped), drained into this ring.
    private var timerSet: Int32 = -1
    private let scratch = UnsafeMutablePointer<cprobe_timer_sample>.allocate(capacity: CPUTimers.drainBatch)

    /// A mapping of its own, made resident here (MAP_POPULATE) and unmapped at the end: left to fill,
    /// the ring's pages became resident as samples reached them, so a replica's RSS rose by steps for
    /// minutes (hours when quiet; docs/probe-in-a-server.md, "Soak"); and from malloc, a stopped
    /// recorder's 6 MiB stayed with malloc (+6.4 MB after a thread-churn round, `ProbeFaultTests`).
    init(bytes: Int) {
        slots = max(16, bytes / (Self.slotWords * MemoryLayout<UInt>.stride))
        let count = slots * Self.slotWords
        let size = count * MemoryLayout<UInt>.stride
        let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0)
        if let mapped, mapped != MAP_FAILED {
            words = mapped.bindMemory(to: UInt.self, capacity: count)
            mappedBytes = size
        } else {
            words = .allocate(capacity: count)
            words.initialize(repeating: 0, count: count)
            mappedBytes = 0
        }
    }

    deinit {
        if mappedBytes > 0 { munmap(words, mappedBytes) } else { words.deallocate() }
        scratch.deallocate()
    }

    var count: Int { head - tail }

    var oldestTime: UInt64? { head > tail ? UInt64(words[(tail % slots) * Self.slotWords]) : nil }

    mutating func attach(timerSet: Int32) { self.timerSet = timerSet }

    /// Takes the timers' thread table (indices may have been given to new threads).
    mutating func name(_ threads: [ProfileSamples.Thread], untimed: Int) {
        self.threads = threads
        untimedThreads = untimed
    }

    /// Moves the timers' samples into the ring: the lock's holder is the set's one drainer.
    mutating func drainTimers() {
        guard timerSet >= 0 else { return }
        CPUTimers.drain(set: timerSet, scratch: scratch) { thread, stack, expirations, time in
            append(thread: thread, stack: stack, expirations: expirations, time: time)
        }
    }

    mutating func append(thread: Int, stack: UnsafeBufferPointer<UInt>, expirations: Int, time: UInt64) {
        if head - tail == slots { tail += 1 }
        let slot = words + (head % slots) * Self.slotWords
        let depth = min(stack.count, Self.maxFrames)
        slot[0] = UInt(time)
        slot[1] = UInt(UInt32(truncatingIfNeeded: thread)) | UInt(depth) << 32 | UInt(min(expirations, 0xffff)) << 48
        if depth > 0 { (slot + 2).update(from: stack.baseAddress!, count: depth) }
        head += 1
    }

    mutating func forget(olderThan time: UInt64) {
        while head > tail, UInt64(words[(tail % slots) * Self.slotWords]) < time { tail += 1 }
    }

    /// Every sample kept, oldest first.
    func forEach(
        _ body: (_ thread: Int, _ stack: UnsafeBufferPointer<UInt>, _ expirations: Int, _ time: UInt64) -> Void
    ) {
        for position in tail..<head {
            let slot = words + (position % slots) * Self.slotWords
            let packed = slot[1]
            body(
                Int(UInt32(truncatingIfNeeded: packed)),
                UnsafeBufferPointer(start: slot + 2, count: Int((packed >> 32) & 0xffff)), Int(packed >> 48),
                UInt64(slot[0]))
        }
    }
}
