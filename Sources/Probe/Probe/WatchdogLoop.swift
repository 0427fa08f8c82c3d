import CProbe
import Foundation
import Metrics
import ProbeRecords
import Synchronization

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
    /// True while the pool's jobs are timed (``PoolJobs``): a job holding its thread longer than the
    /// threshold is a stall of that thread, and the pool is pinged only when every thread is busy.
    private var timesPoolJobs = false
    /// What this watchdog cannot see here, said once at start.
    private(set) var limitations: [String] = []

    private let tick: UInt64
    /// How often the resting clock looks at this watchdog's target while nothing is going on (see
    /// `WatchdogConfiguration.restingLookInterval`).
    private let restingSchedule: RestingLookSchedule
    /// When a look last found the target working (a loop out of its wait, a pool job, a busy
    /// heartbeat); 0 before the first. Written by whichever thread looks, read by the resting clock.
    private let lastWorkSeen = Atomic<UInt64>(0)
    /// Set by `requestStop()`: the stop semaphore also wakes a parked loop for other reasons.
    private let stopping = Atomic<Bool>(false)
    private let sampleInterval: UInt64
    private let threshold: UInt64
    private let pingInterval: UInt64
    /// A wake-up later than this (or a CLOCK_BOOTTIME jump) means the whole process was paused.
    private let pauseTolerance: UInt64
    /// The pool's width (the runtime's queues run as many jobs at once as there are CPUs), read once:
    /// `activeProcessorCount` reads the affinity and cgroup files on each call (20 µs, 8 syscalls here).
    private let poolWidth = ProcessInfo.processInfo.activeProcessorCount
    /// Every time the loop reads (see ``WatchdogClock``: virtual in the tests).
    private let clock: any WatchdogClock
    /// Reads the stalled thread: signals and `/proc` in a process, a script in the tests.
    private let reader: any StalledThreadReader
    /// The process's pauses between this loop's own looks.
    private var pauses = PauseDetector(monotonic: 0, boot: 0)
    /// A pause the resting clock saw at the look that handed this loop back its thread (set while
    /// the loop is parked, so only the clock writes it then).
    private var pauseWhileResting: UInt64 = 0
    /// When the next look is due between stalls (one tick after the previous).
    private var expectedWake: UInt64 = 0

    private var pingGeneration: UInt64 = 0
    private var pingSentAt: UInt64 = 0
    private var pingOutstanding = false
    private var episode: StallEpisode?
    /// Long jobs on the cooperative pool going on now, by thread.
    private var jobEpisodes: [Int32: StallEpisode] = [:]
    /// Reads whether an event loop's thread is idle in its epoll wait, so an idle loop is not woken
    /// by pings (each one is a wake-up of the loop's thread, the bulk of watching at rest).
    private let idleWait = ThreadSyscallReader()
    /// Each ping's lateness, for pinged targets with metrics on.
    private let loopLag: LoopLag?

    init(
        watchdog: Watchdog, slot: Int32, stopRequest: DispatchSemaphore,
        clock: any WatchdogClock = SystemWatchdogClock(), reader: (any StalledThreadReader)? = nil,
        pinger scriptedPinger: (any Pinger)? = nil
    ) {
        self.watchdog = watchdog
        self.clock = clock
        self.configuration = watchdog.configuration
        self.slot = slot
        self.stopRequest = stopRequest
        outlets = StallOutlets(configuration: configuration) { [failures = watchdog.outletFailuresCounter] in
            failures.add()
        }
        // A pinger handed in (the virtual-time tests') stands for the target's own.
        pinger = scriptedPinger ?? watchdog.target.makePinger(signal: configuration.signal)
        poolPinger = pinger as? CooperativePoolPinger
        if case .heartbeat(let beat) = watchdog.target { heartbeat = beat } else { heartbeat = nil }
        loopLag =
            configuration.metrics && pinger != nil
            ? LoopLag(watchdog: configuration.name, factory: configuration.metricsFactory ?? MetricsSystem.factory)
            : nil
        threshold = max(1_000_000, configuration.threshold.nanoseconds)
        sampleInterval = max(100_000, configuration.sampleInterval.nanoseconds)
        // Between stalls the loop only looks for busy periods; samples have their own schedule.
        tick = max(2_000_000, min(50_000_000, threshold / 4))
        restingSchedule = RestingLookSchedule(
            threshold: threshold, tick: tick, configured: configuration.restingLookInterval?.nanoseconds)
        pingInterval = max(2_000_000, threshold / 4)
        pauseTolerance = max(threshold / 2, 50_000_000)
        self.reader =
            reader ?? SignalSampler(configuration: configuration, slot: slot, sampleInterval: sampleInterval)
    }

    /// Starts what the loop needs before its thread runs: the pool's job timing. Returns what the
    /// watchdog cannot see here.
    func prepare() -> [String] {
        if poolPinger != nil {
            if let reason = PoolJobs.start(signal: configuration.signal) {
                limitations.append(reason)
            } else {
                timesPoolJobs = true
            }
        }
        return limitations
    }

    func run() {
        defer {
            if timesPoolJobs { PoolJobs.stop() }
            cprobe_slot_release(slot)
            cprobe_uninstall_handler(configuration.signal)
        }
        FramePointerCode.publishInBackground()
        begin()
        while !stopping.load(ordering: .acquiring) {
            if isResting {
                // Nothing to time: the resting clock looks for this watchdog, and wakes it (or stop()
                // does). The time parked is no pause of the target's.
                RestingClock.shared.park(self)
                stopRequest.wait()
                RestingClock.shared.unpark(self)
                if stopping.load(ordering: .acquiring) { break }
                resumeFromRest()
                continue
            }
            let wake = nextWake
            let timeout = wake.saturatingSubtract(clock.monotonicNanoseconds())
            _ = stopRequest.wait(timeout: .now() + .nanoseconds(Int(timeout)))
            if stopping.load(ordering: .acquiring) { break }
            look(scheduledFor: wake)
        }
        end()
    }

    // MARK: The loop's steps, each reading `clock`: `run()` waits between them on the real clock,
    // the tests call them in virtual time.

    /// Before the first look: the first ping out, the clocks' offset taken.
    func begin() {
        let now = clock.monotonicNanoseconds()
        // Timed jobs prepare each pool thread for sampling as it runs its first job.
        if !timesPoolJobs { poolPinger?.prepareThreads(now: now) }
        if let pinger { sendPing(pinger, now: now) }
        pauses = PauseDetector(monotonic: now, boot: clock.bootTimeNanoseconds())
        expectedWake = now + tick
    }

    /// When the next look is due while not resting: the next tick, or an episode's next sample.
    var nextWake: UInt64 {
        var wake = expectedWake
        if let episode, episode.wantsSample { wake = min(wake, episode.nextSampleAt) }
        for job in jobEpisodes.values where job.wantsSample { wake = min(wake, job.nextSampleAt) }
        return wake
    }

    /// One look, woken for the look due at `wake` (``nextWake``).
    func look(scheduledFor wake: UInt64) {
        let now = clock.monotonicNanoseconds()
        // A late wake-up of this thread, or a suspended machine, is time the watched thread could
        // not run either.
        // The target was seen busy (or a ping out) at the previous look: the pause counts from due.
        let pause = pauses.look(monotonic: now, boot: clock.bootTimeNanoseconds(), due: wake, since: wake)
        observe(now: now, pause: pause.excused(tolerance: pauseTolerance))
        if now >= expectedWake { expectedWake = clock.monotonicNanoseconds() + tick }
    }

    /// Back from resting (the resting clock saw something to time): a look at once. The time parked
    /// is no pause of the target's; a pause of the process the resting clock saw before its look is.
    func resumeFromRest() {
        let now = clock.monotonicNanoseconds()
        pauses = PauseDetector(monotonic: now, boot: clock.bootTimeNanoseconds())
        observe(now: now, pause: pauseWhileResting)
        pauseWhileResting = 0
        expectedWake = now + tick
    }

    /// At stop: a stall that ended before the stop is recorded as ended, with its real duration;
    /// one still going on is recorded as ongoing.
    func end() {
        observe(now: clock.monotonicNanoseconds(), pause: 0, stopping: true)
        let now = clock.monotonicNanoseconds()
        for stall in [episode].compactMap({ $0 }) + jobEpisodes.values.sorted(by: { $0.busySince < $1.busySince })
        where stall.confirmed && !stall.absorbed {
            finish(stall, ongoing: true, now: now)
        }
        episode = nil
        jobEpisodes = [:]
    }

    /// Asks the loop's thread to stop (from `Watchdog.stop()`), parked or not.
    func requestStop() {
        stopping.store(true, ordering: .releasing)
        stopRequest.signal()
    }

    /// Wakes the parked loop's thread (from the resting clock).
    func resume() { stopRequest.signal() }

    /// Nothing going on: no busy period, no outstanding ping, no long pool job.
    var isResting: Bool { episode == nil && jobEpisodes.isEmpty && !pingOutstanding }

    /// The resting clock's look at a parked loop (its thread waits, so the clock has the loop to
    /// itself): true when there is something to time, which the loop's own thread then does.
    /// `pause`: what the clock's own ``PauseDetector`` saw before this look. A busy period found
    /// now began after the clock's previous look, so all of it is excused when the look was late.
    func needsItsThread(now: UInt64, pause: Pause = .none) -> Bool {
        pauseWhileResting = pause.excused(tolerance: pauseTolerance)
        if let heartbeat {
            guard heartbeat.currentBusySince != nil else { return false }
            sawWork(now: now)
            return true
        }
        guard let pinger else { return false }
        if timesPoolJobs, let oldest = PoolJobs.busySummary().oldestSince {
            sawWork(now: now)
            // (A Probe thread never runs a pool job that long: its tasks are pings.)
            if now.saturatingSubtract(oldest) >= threshold / 2 { return true }
        }
        guard now.saturatingSubtract(pingSentAt) >= currentPingInterval(pinger) else { return false }
        if isIdleInItsWait(pinger) {
            pingSentAt = now
            loopLag?.record(0, now: now)
            return false
        }
        // A ping is due: the loop's thread sends it and times it. An event loop out of its wait is
        // working; a queue or the pool is only due its ping.
        if pinger is ExecutorPinger { sawWork(now: now) }
        return true
    }

    /// The interval to the resting clock's next look at this watchdog's target.
    func restingTick(now: UInt64) -> UInt64 {
        let seen = lastWorkSeen.load(ordering: .relaxed)
        return restingSchedule.interval(now: now, lastWorkSeen: seen == 0 ? nil : seen)
    }

    private func sawWork(now: UInt64) { lastWorkSeen.store(now, ordering: .relaxed) }

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
        if pingOutstanding, pinger.arrivedGeneration == pingGeneration {
            pingOutstanding = false
            loopLag?.record(pinger.arrivedAt.saturatingSubtract(pingSentAt), now: now)
        }
        if !pingOutstanding, !timesPoolJobs { poolPinger?.prepareThreads(now: now) }
        if !pingOutstanding, now.saturatingSubtract(pingSentAt) >= currentPingInterval(pinger) {
            if isIdleInItsWait(pinger) {
                // Nothing to time: the loop waits for work. Looked at again next tick.
                pingSentAt = now
                loopLag?.record(0, now: now)
            } else {
                sendPing(pinger, now: now)
            }
        }
        return pingOutstanding ? (pingSentAt, pinger.threadID) : nil
    }

    /// While the pool's jobs are timed and some pool thread is free, a new job can start at once:
    /// the pool is pinged only every 10 s then, in case work outside Swift concurrency (Dispatch
    /// work on the same threads) holds them — such a starvation is then timed from a ping sent up
    /// to 10 s after it began.
    private func currentPingInterval(_ pinger: any Pinger) -> UInt64 {
        guard timesPoolJobs else { return pingInterval }
        return PoolJobs.busySummary().count >= poolWidth ? pingInterval : max(pingInterval, 10_000_000_000)
    }

    /// True when the target is an executor whose one thread sits in an epoll wait (an event loop
    /// with nothing to do): a ping would only wake it.
    private func isIdleInItsWait(_ pinger: any Pinger) -> Bool {
        guard pinger is ExecutorPinger, let thread = pinger.threadID else { return false }
        return idleWait.isInEpollWait(thread)
    }

    /// When the episode's busy period ended, as the target recorded it; `now` when unknown.
    private func endOfBusyPeriod(_ episode: StallEpisode, now: UInt64) -> UInt64 {
        let end = heartbeat?.lastBusyEnd ?? pinger?.arrivedAt ?? now
        return end > episode.busySince && end <= now ? end : now
    }

    private func observe(now: UInt64, pause: UInt64, stopping: Bool = false) {
        let busy = busyPeriod(now: now)
        if let current = episode, busy?.since != current.busySince {
            // The busy period ended (or a new one began): one report per stall, at its end.
            conclude(current, end: endOfBusyPeriod(current, now: now))
            episode = nil
        }
        if let busy, !stopping {
            var current =
                episode
                ?? StallEpisode(
                    busySince: busy.since, threadID: busy.thread, firstSeen: now,
                    cpuAtFirstSeen: busy.thread.flatMap(reader.cpuNanoseconds(of:)),
                    isPoolStarvation: poolPinger != nil, seenAt: clock.date())
            // A queue's drain thread may only be known (or change) after the first look: CPU time
            // is then counted for the thread seen now, from now.
            if let thread = busy.thread, thread != current.threadID {
                current.threadID = thread
                current.firstSeen = now
                current.cpuAtFirstSeen = reader.cpuNanoseconds(of: thread)
            }
            advance(&current, now: now, pause: pause)
            episode = current
        }
        if timesPoolJobs { observeJobs(now: now, pause: pause, stopping: stopping) }
    }

    /// Long jobs on the pool: each pool thread inside one job for half the threshold becomes an
    /// episode of its own, sampled like a stalled event loop. While the whole pool is starved, its
    /// long jobs are that starvation (its record holds each thread's stack) and are not reported
    /// again on their own.
    private func observeJobs(now: UInt64, pause: UInt64, stopping: Bool) {
        let busy = PoolJobs.busy().filter { !ProbeThreads.contains($0.thread) }
        var since: [Int32: UInt64] = [:]
        for job in busy { since[job.thread] = job.since }
        for (thread, job) in jobEpisodes where since[thread] != job.busySince {
            let recorded = PoolJobs.lastEnd(of: thread) ?? now
            conclude(job, end: recorded > job.busySince && recorded <= now ? recorded : now)
            jobEpisodes[thread] = nil
        }
        guard !stopping else { return }
        let starved = episode?.confirmed == true
        for job in busy where now.saturatingSubtract(job.since) >= threshold / 2 {
            var current =
                jobEpisodes[job.thread]
                ?? StallEpisode(
                    busySince: job.since, threadID: job.thread, firstSeen: now,
                    cpuAtFirstSeen: reader.cpuNanoseconds(of: job.thread), seenAt: clock.date())
            if starved { current.absorbed = true }
            advance(&current, now: now, pause: pause)
            jobEpisodes[job.thread] = current
        }
    }

    /// The end of an episode: its final report when it was a stall.
    private func conclude(_ stall: StallEpisode, end: UInt64) {
        if stall.confirmed, !stall.absorbed {
            finish(stall, ongoing: false, now: end)
        } else if stall.pausedDuring, !stall.confirmed {
            watchdog.notePauseIgnored()
        }
    }

    /// One look at a busy period: paused time excused, confirmed past the threshold, sampled from
    /// half of it, reported early when `reportOngoingAfter` says so.
    private func advance(_ current: inout StallEpisode, now: UInt64, pause: UInt64) {
        if pause > 0 {
            // Only the part of the pause inside this busy period is excused.
            current.excused += min(pause, now.saturatingSubtract(current.busySince))
            current.pausedDuring = true
        }
        let elapsed = now.saturatingSubtract(current.busySince)
        let effective = elapsed > current.excused ? elapsed - current.excused : 0
        current.lastSeen = now
        if effective >= threshold { current.confirmed = true }
        if effective >= threshold / 2, now >= current.nextSampleAt, !current.samplingDone {
            if !current.sampling {
                current.sampling = true
                current.samplingSince = now
            }
            if current.isPoolStarvation, let poolPinger {
                samplePool(poolPinger, into: &current, now: now)
            } else if let tid = current.threadID {
                reader.sample(tid, into: &current.samples, since: current.samplingSince, now: now)
                current.samplingDone = current.samples.sampleCount >= configuration.maxSamplesPerStall
            }
            // On schedule, not from now: a late wake-up does not stretch the interval for good.
            current.nextSampleAt = max(current.nextSampleAt + sampleInterval, now + sampleInterval / 2)
        }
        if current.confirmed, !current.reported, !current.absorbed, let after = configuration.reportOngoingAfter,
            effective >= after.nanoseconds
        {
            finish(current, ongoing: true, now: now, early: true)
            current.reported = true
        }
    }

    /// Samples every thread of the starved pool; a thread seen for the first time joins the
    /// episode (the pool may grow or replace threads while starved).
    private func samplePool(_ pool: CooperativePoolPinger, into episode: inout StallEpisode, now: UInt64) {
        var threads = pool.poolThreads() ?? []
        if timesPoolJobs {
            let known = Set(threads.map(\.id))
            for tid in PoolJobs.threads() where !known.contains(tid) {
                if let name = CooperativePoolThreads.name(of: tid) { threads.append(PoolThread(id: tid, name: name)) }
            }
        }
        var done = true
        for thread in threads where !ProbeThreads.contains(thread.id) {
            var entry =
                episode.poolThreads.first { $0.thread == thread } ?? PoolThreadSamples(thread: thread)
            guard entry.samples.sampleCount < configuration.maxSamplesPerStall else { continue }
            reader.sample(thread.id, into: &entry.samples, since: episode.samplingSince, now: now)
            if entry.samples.sampleCount < configuration.maxSamplesPerStall { done = false }
            if let index = episode.poolThreads.firstIndex(where: { $0.thread == thread }) {
                episode.poolThreads[index] = entry
            } else {
                episode.poolThreads.append(entry)
            }
        }
        episode.samplingDone = done && !threads.isEmpty
    }

    private func finish(_ episode: StallEpisode, ongoing: Bool, now: UInt64, early: Bool = false) {
        let record = StallBuilder.record(
            for: episode, watchdog: configuration.name, threshold: threshold, ongoing: ongoing, now: now,
            cpuNow: episode.threadID.flatMap(reader.cpuNanoseconds(of:)), symbolicator: Symbolicator.shared)
        // A stall reported early (`reportOngoingAfter`) is counted once, at that report.
        let isFinalOfReported = episode.reported
        if !isFinalOfReported { watchdog.record(record) } else { watchdog.replaceLatest(with: record) }
        outlets.deliver(record, counted: !isFinalOfReported, early: early)
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
    /// Reported early, as ongoing (`reportOngoingAfter`); its final report follows at its end.
    var reported = false
    /// A long pool job during a starvation of the whole pool: that starvation's record covers it.
    var absorbed = false
    /// Every thread has its `maxSamplesPerStall` samples: the stall is only timed from here on.
    var samplingDone = false
    /// When the busy period began, in wall-clock time (the same in an early and a final report).
    let startDate: Date
    /// Sampling began (at half the threshold); samples follow every sample interval from then.
    var sampling = false
    var samplingSince: UInt64 = 0
    var nextSampleAt: UInt64 = 0
    var samples = ThreadSamples()
    /// A starvation of the cooperative pool: no one thread stalls, every pool thread is sampled.
    var isPoolStarvation: Bool
    var poolThreads: [PoolThreadSamples] = []

    /// `seenAt`: the wall-clock time at `firstSeen`.
    init(
        busySince: UInt64, threadID: Int32?, firstSeen: UInt64, cpuAtFirstSeen: Int64?, isPoolStarvation: Bool = false,
        seenAt: Date
    ) {
        self.busySince = busySince
        self.threadID = threadID
        self.firstSeen = firstSeen
        self.lastSeen = firstSeen
        self.cpuAtFirstSeen = cpuAtFirstSeen
        self.isPoolStarvation = isPoolStarvation
        startDate = seenAt.addingTimeInterval(-Double(firstSeen.saturatingSubtract(busySince)) / 1e9)
    }

    /// True while the watchdog should wake for this episode's next sample.
    var wantsSample: Bool { sampling && !samplingDone }
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
