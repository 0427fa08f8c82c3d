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
    private let sampleInterval: UInt64
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
        sampleInterval = max(100_000, configuration.sampleInterval.nanoseconds)
        // Between stalls the loop only looks for busy periods; samples have their own schedule.
        tick = max(2_000_000, min(50_000_000, threshold / 4))
        pingInterval = max(2_000_000, threshold / 4)
        pauseTolerance = max(threshold / 2, 50_000_000)
    }

    deinit { buffer.deallocate() }

    func run() {
        defer {
            cprobe_slot_release(slot)
            cprobe_uninstall_handler(configuration.signal)
        }
        FramePointerCode.publishInBackground()
        poolPinger?.prepareThreads(now: cprobe_monotonic_ns())
        if let pinger { sendPing(pinger, now: cprobe_monotonic_ns()) }
        var bootOffset = Int64(bitPattern: cprobe_boottime_ns() &- cprobe_monotonic_ns())
        var expectedWake = cprobe_monotonic_ns() + tick
        while true {
            var wake = expectedWake
            if let episode, episode.sampling { wake = min(wake, episode.nextSampleAt) }
            let timeout = wake.saturatingSubtract(cprobe_monotonic_ns())
            if stopRequest.wait(timeout: .now() + .nanoseconds(Int(timeout))) == .success { break }
            let now = cprobe_monotonic_ns()
            // A late wake-up of this thread, or CLOCK_BOOTTIME running ahead of CLOCK_MONOTONIC
            // (the machine was suspended), is time the watched thread could not run either.
            let lateness = now > wake ? now - wake : 0
            let newBootOffset = Int64(bitPattern: cprobe_boottime_ns() &- now)
            let suspended = UInt64(max(0, newBootOffset - bootOffset))
            bootOffset = newBootOffset
            let pause = max(lateness, suspended)
            observe(now: now, pause: pause > pauseTolerance ? pause : 0)
            if now >= expectedWake { expectedWake = cprobe_monotonic_ns() + tick }
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
            if !current.sampling {
                current.sampling = true
                current.samplingSince = now
            }
            if let tid = current.threadID {
                if current.samples.sampleCount < configuration.maxSamplesPerStall {
                    takeSample(of: tid, into: &current.samples, since: current.samplingSince, now: now)
                }
            } else if let poolPinger {
                samplePool(poolPinger, into: &current, now: now)
            }
            // On schedule, not from now: a late wake-up does not stretch the interval for good.
            current.nextSampleAt = max(current.nextSampleAt + sampleInterval, now + sampleInterval / 2)
        }
        if current.confirmed, !current.reported, effective >= configuration.reportOngoingAfter.nanoseconds {
            finish(current, ongoing: true, now: now)
            current.reported = true
        }
        episode = current
    }

    /// Samples every thread of the starved pool; a thread seen for the first time joins the
    /// episode (the pool may grow or replace threads while starved).
    private func samplePool(_ pool: CooperativePoolPinger, into episode: inout StallEpisode, now: UInt64) {
        for thread in pool.poolThreads() ?? [] {
            var entry =
                episode.poolThreads.first { $0.thread == thread } ?? PoolThreadSamples(thread: thread)
            guard entry.samples.sampleCount < configuration.maxSamplesPerStall else { continue }
            takeSample(of: thread.id, into: &entry.samples, since: episode.samplingSince, now: now)
            if let index = episode.poolThreads.firstIndex(where: { $0.thread == thread }) {
                episode.poolThreads[index] = entry
            } else {
                episode.poolThreads.append(entry)
            }
        }
    }

    private func takeSample(of tid: Int32, into samples: inout ThreadSamples, since: UInt64, now: UInt64) {
        let state = ThreadInfo.state(of: tid)
        if state == "S" || state == "D", let line = ThreadInfo.syscallLine(of: tid), line != "running" {
            // Blocked: the stack is read from /proc and the stack memory, never by a signal,
            // which would cut a sleep short (EINTR) or wake a wait. The same wait as at the
            // previous sample has the same stack.
            if let last = samples.lastWait, last.line == line {
                samples.add(last.seen, state: state)
                return
            }
            if let stack = BlockedThreadStack.unwind(tid: tid, syscallLine: line) {
                samples.lastWait = (line, .stack(stack))
                samples.add(.stack(stack), state: state)
                return
            }
            if !configuration.interruptSleepingSyscalls, let name = ThreadInfo.interruptibleSleep(syscallLine: line) {
                samples.lastWait = (line, .syscall(name))
                samples.add(.syscall(name), state: state)
                return
            }
        }
        samples.lastWait = nil
        // The handler's time on the stalled thread stays within the budget: a sample that would
        // exceed it is not taken (deep stacks through code without frame records cost the most).
        let allowed = configuration.samplingBudget * Double(now.saturatingSubtract(since) + sampleInterval)
        if Double(samples.handlerNanoseconds) > allowed { return }
        let blocked = samples.blocksSignal ?? ThreadInfo.blocks(signal: configuration.signal, tid: tid)
        samples.blocksSignal = blocked
        if blocked {
            samples.add(nil, state: state)
            return
        }
        var info = cprobe_sample_info()
        let result = cprobe_sample(
            slot, configuration.signal, tid, configuration.answerTimeout.nanoseconds,
            Int32(CPROBE_UNWIND_FRAME_POINTERS), buffer, CPROBE_MAX_FRAMES, &info)
        if result == Int32(CPROBE_SAMPLE_OK), info.depth > 0 {
            let stack = Array(UnsafeBufferPointer(start: buffer, count: Int(info.depth)))
            samples.add(.stack(stack), state: state, handlerNanoseconds: info.handler_ns)
        } else {
            samples.add(nil, state: state)
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
    /// Sampling began (at half the threshold); samples follow every sample interval from then.
    var sampling = false
    var samplingSince: UInt64 = 0
    var nextSampleAt: UInt64 = 0
    var samples = ThreadSamples()
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
    var samples = ThreadSamples()
}

extension UInt64 {
    /// `self - other`, or 0 when `other` is later: the watched thread may stamp its busy time
    /// just after the watchdog read the clock.
    func saturatingSubtract(_ other: UInt64) -> UInt64 { self > other ? self - other : 0 }
}
