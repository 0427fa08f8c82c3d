import CProbe
import Foundation
import PerfReport

/// The watchdog's thread: wakes every tick, checks whether the target is busy, samples the
/// stalled thread and finishes stall records. Everything here is owned by that one thread.
final class WatchdogLoop: @unchecked Sendable {
    private let watchdog: Watchdog  // a cycle only while running: stop() drops the loop
    private let configuration: WatchdogConfiguration
    private let slot: Int32
    private let stopRequest: DispatchSemaphore
    private let outlets: StallOutlets
    private let pinger: (any Pinger)?
    private let heartbeat: Heartbeat?
    /// Set when the target is the cooperative pool, whose threads are all sampled in a stall.
    private let poolPinger: CooperativePoolPinger?

    private let tick: UInt64
    private let threshold: UInt64
    private let pingInterval: UInt64
    /// A wake-up later than this (or a CLOCK_BOOTTIME jump) means the whole process was paused.
    private let pauseTolerance: UInt64
    private let buffer = UnsafeMutablePointer<UInt>.allocate(capacity: Int(CPROBE_MAX_FRAMES))

    private var pingGeneration: UInt64 = 0
    private var pingSentAt: UInt64 = 0
    private var pingOutstanding = false
    private var episode: StallEpisode?

    init(watchdog: Watchdog, slot: Int32, stopRequest: DispatchSemaphore) {
        self.watchdog = watchdog
        self.configuration = watchdog.configuration
        self.slot = slot
        self.stopRequest = stopRequest
        self.outlets = StallOutlets(configuration: configuration)
        pinger = watchdog.target.makePinger(signal: configuration.signal)
        poolPinger = pinger as? CooperativePoolPinger
        if case .heartbeat(let beat) = watchdog.target { heartbeat = beat } else { heartbeat = nil }
        threshold = max(1_000_000, configuration.threshold.nanoseconds)
        let sampleInterval = max(1_000_000, configuration.sampleInterval.nanoseconds)
        tick = max(2_000_000, min(sampleInterval, threshold / 4))
        pingInterval = max(2_000_000, threshold / 4)
        pauseTolerance = max(threshold / 2, 50_000_000)
    }

    deinit { buffer.deallocate() }

    func run() {
        defer {
            cprobe_slot_release(slot)
            cprobe_uninstall_handler(configuration.signal)
        }
        poolPinger?.prepareThreads(now: cprobe_monotonic_ns())
        if let pinger { sendPing(pinger, now: cprobe_monotonic_ns()) }
        var bootOffset = Int64(bitPattern: cprobe_boottime_ns() &- cprobe_monotonic_ns())
        var expectedWake = cprobe_monotonic_ns() + tick
        while true {
            let timeout = expectedWake.saturatingSubtract(cprobe_monotonic_ns())
            if stopRequest.wait(timeout: .now() + .nanoseconds(Int(timeout))) == .success { break }
            let now = cprobe_monotonic_ns()
            // A late wake-up of this thread, or CLOCK_BOOTTIME running ahead of CLOCK_MONOTONIC
            // (the machine was suspended), is time the watched thread could not run either.
            let lateness = now > expectedWake ? now - expectedWake : 0
            let newBootOffset = Int64(bitPattern: cprobe_boottime_ns() &- now)
            let suspended = UInt64(max(0, newBootOffset - bootOffset))
            bootOffset = newBootOffset
            let pause = max(lateness, suspended)
            observe(now: now, pause: pause > pauseTolerance ? pause : 0)
            expectedWake = cprobe_monotonic_ns() + tick
        }
        if let episode, episode.confirmed, !episode.reported {
            finish(episode, ongoing: true, now: cprobe_monotonic_ns())
        }
        episode = nil
    }

    private func sendPing(_ pinger: any Pinger, now: UInt64) {
        pingGeneration += 1
        pingSentAt = now
        pingOutstanding = true
        pinger.post(generation: pingGeneration)
    }

    /// The target's current busy period start and thread, if it is busy.
    private func busyPeriod(now: UInt64) -> (since: UInt64, thread: Int32?)? {
        if let heartbeat {
            return heartbeat.currentBusySince.map { ($0, heartbeat.threadID) }
        }
        guard let pinger else { return nil }
        if pingOutstanding, pinger.arrivedGeneration == pingGeneration { pingOutstanding = false }
        if !pingOutstanding { poolPinger?.prepareThreads(now: now) }
        if !pingOutstanding, now.saturatingSubtract(pingSentAt) >= pingInterval { sendPing(pinger, now: now) }
        return pingOutstanding ? (pingSentAt, pinger.threadID) : nil
    }

    /// When the episode's busy period ended, as the target recorded it; `now` when unknown.
    private func endOfBusyPeriod(_ episode: StallEpisode, now: UInt64) -> UInt64 {
        let end = heartbeat?.lastBusyEnd ?? pinger?.arrivedAt ?? now
        return end > episode.busySince && end <= now ? end : now
    }

    private func observe(now: UInt64, pause: UInt64) {
        let busy = busyPeriod(now: now)
        if let current = episode, busy?.since != current.busySince {
            // The busy period ended (or a new one began): one report per stall, at its end.
            if current.confirmed, !current.reported {
                finish(current, ongoing: false, now: endOfBusyPeriod(current, now: now))
            } else if current.pausedDuring, !current.confirmed {
                watchdog.notePauseIgnored()
            }
            episode = nil
        }
        guard let busy else { return }
        if episode == nil {
            episode = StallEpisode(
                busySince: busy.since, threadID: busy.thread, firstSeen: now,
                cpuAtFirstSeen: busy.thread.flatMap(ThreadInfo.cpuNanoseconds(of:)), isPoolStarvation: poolPinger != nil
            )
        }
        guard var current = episode else { return }
        if pause > 0 {
            // Only the part of the pause inside this busy period is excused.
            current.excused += min(pause, now.saturatingSubtract(current.busySince))
            current.pausedDuring = true
        }
        // A queue's drain thread may only be known (or change) after the first look: CPU time
        // is then counted for the thread seen now, from now.
        if let thread = busy.thread, thread != current.threadID {
            current.threadID = thread
            current.firstSeen = now
            current.cpuAtFirstSeen = ThreadInfo.cpuNanoseconds(of: thread)
        }
        let elapsed = now.saturatingSubtract(current.busySince)
        let effective = elapsed > current.excused ? elapsed - current.excused : 0
        current.lastSeen = now
        if effective >= threshold { current.confirmed = true }
        if effective >= threshold / 2, now >= current.nextSampleAt {
            if let tid = current.threadID, current.samples.count < configuration.maxSamplesPerStall {
                takeSample(of: tid, into: &current.samples, lastSyscall: &current.lastSyscall)
            } else if let poolPinger {
                samplePool(poolPinger, into: &current)
            }
            current.nextSampleAt = cprobe_monotonic_ns() + max(1_000_000, configuration.sampleInterval.nanoseconds)
        }
        if current.confirmed, !current.reported, effective >= configuration.reportOngoingAfter.nanoseconds {
            finish(current, ongoing: true, now: now)
            current.reported = true
        }
        episode = current
    }

    /// Samples every thread of the starved pool; a thread seen for the first time joins the
    /// episode (the pool may grow or replace threads while starved).
    private func samplePool(_ pool: CooperativePoolPinger, into episode: inout StallEpisode) {
        for thread in pool.poolThreads() ?? [] {
            var entry =
                episode.poolThreads.first { $0.thread == thread } ?? PoolThreadSamples(thread: thread)
            guard entry.samples.count < configuration.maxSamplesPerStall else { continue }
            takeSample(of: thread.id, into: &entry.samples, lastSyscall: &entry.lastSyscall)
            if let index = episode.poolThreads.firstIndex(where: { $0.thread == thread }) {
                episode.poolThreads[index] = entry
            } else {
                episode.poolThreads.append(entry)
            }
        }
    }

    private func takeSample(of tid: Int32, into samples: inout [StallSample], lastSyscall: inout String?) {
        let state = ThreadInfo.state(of: tid)
        let syscall = ThreadInfo.syscallLine(of: tid)
        // A thread asleep in the same syscall as at the previous sample is in the same wait: reuse
        // that stack instead of signalling it again, which would interrupt the wait (EINTR).
        if state == "S" || state == "D", let syscall, syscall != "running", syscall == lastSyscall,
            let previous = samples.last(where: { $0.stack != nil })?.stack
        {
            samples.append(StallSample(stack: previous, state: state))
            return
        }
        lastSyscall = syscall
        // nanosleep, poll, epoll_wait … return EINTR when a handler runs, even with SA_RESTART:
        // record where the thread sleeps instead of changing how long it sleeps.
        if !configuration.interruptSleepingSyscalls, state == "S", let syscall,
            let name = ThreadInfo.interruptibleSleep(syscallLine: syscall)
        {
            samples.append(StallSample(stack: nil, state: state, syscall: name))
            return
        }
        if ThreadInfo.blocks(signal: configuration.signal, tid: tid) {
            samples.append(StallSample(stack: nil, state: state))
            return
        }
        var depth: Int32 = 0
        let result = cprobe_sample(
            slot, configuration.signal, tid, configuration.answerTimeout.nanoseconds, buffer, CPROBE_MAX_FRAMES, &depth)
        if result == Int32(CPROBE_SAMPLE_OK), depth > 0 {
            samples.append(
                StallSample(stack: Array(UnsafeBufferPointer(start: buffer, count: Int(depth))), state: state))
        } else {
            samples.append(StallSample(stack: nil, state: state))
        }
    }

    private func finish(_ episode: StallEpisode, ongoing: Bool, now: UInt64) {
        let record = StallBuilder.record(
            for: episode, watchdog: configuration.name, threshold: threshold, ongoing: ongoing, now: now,
            symbolicator: Symbolicator.shared)
        watchdog.record(record)
        outlets.deliver(record)
    }
}

/// One busy period of the watched thread, from the watchdog's first look at it.
struct StallEpisode {
    var busySince: UInt64
    var threadID: Int32?
    var firstSeen: UInt64
    var lastSeen: UInt64 = 0
    var cpuAtFirstSeen: Int64?
    /// Paused time (process stopped or suspended) not counted as stall.
    var excused: UInt64 = 0
    var pausedDuring = false
    var confirmed = false
    var reported = false
    var nextSampleAt: UInt64 = 0
    var lastSyscall: String?
    var samples: [StallSample] = []
    /// A starvation of the cooperative pool: no one thread stalls, every pool thread is sampled.
    var isPoolStarvation: Bool
    var poolThreads: [PoolThreadSamples] = []

    init(busySince: UInt64, threadID: Int32?, firstSeen: UInt64, cpuAtFirstSeen: Int64?, isPoolStarvation: Bool = false)
    {
        self.busySince = busySince
        self.threadID = threadID
        self.firstSeen = firstSeen
        self.lastSeen = firstSeen
        self.cpuAtFirstSeen = cpuAtFirstSeen
        self.isPoolStarvation = isPoolStarvation
    }
}

/// The samples of one pool thread during a starvation.
struct PoolThreadSamples {
    var thread: PoolThread
    var samples: [StallSample] = []
    var lastSyscall: String?
}

struct StallSample {
    /// Program counters, innermost first; nil when the handler gave no answer (or was not asked).
    var stack: [UInt]?
    var state: String
    /// Set instead of a stack when the thread slept in a syscall a signal would cut short.
    var syscall: String? = nil
}

extension UInt64 {
    /// `self - other`, or 0 when `other` is later: the watched thread may stamp its busy time
    /// just after the watchdog read the clock.
    func saturatingSubtract(_ other: UInt64) -> UInt64 { self > other ? self - other : 0 }
}
