import CProbe
import Foundation
import Metrics
import ProbeRecords
import Synchronization

/// A watchdog's thread: looks at its target through a ``TargetObserver`` every tick, times each
/// busy period, samples it from half the threshold and reports it as a stall past the threshold.
/// Its state belongs to one thread at a time, which ``ownership`` checks in debug builds.
final class WatchdogLoop: @unchecked Sendable {
    private let watchdog: Watchdog  // a cycle only while running: stop() drops the loop
    private let configuration: WatchdogConfiguration
    private let intervals: WatchdogIntervals
    private let slot: Int32
    private let stopRequest: DispatchSemaphore
    private let outlets: StallOutlets
    private let observer: any TargetObserver
    /// Every time the loop reads (see ``WatchdogClock``: virtual in the tests).
    private let clock: any WatchdogClock
    /// Reads the stalled thread: signals and `/proc` in a process, a script in the tests.
    private let reader: any StalledThreadReader
    /// Set by `requestStop()`: the stop semaphore also wakes a parked loop for other reasons.
    private let stopping = Atomic<Bool>(false)
    /// When a look last found the target working (see `RestingLookSchedule`); 0 before the first.
    private let lastWorkSeen = Atomic<UInt64>(0)

    /// Which thread may touch the state below (and `observer`): the one that made the loop until
    /// `prepare()`, then the loop's own, which lends it to the resting clock while parked.
    let ownership = ThreadOwnership()
    /// The process's pauses between this loop's own looks.
    private var pauses = PauseDetector(monotonic: 0, boot: 0)
    /// A pause the resting clock saw at the look that handed this loop back its thread.
    private var pauseWhileResting = Excuse.none
    /// When the next look is due between stalls (one tick after the previous).
    private var expectedWake: UInt64 = 0
    /// The target's busy period going on now.
    private var episode: StallEpisode?
    /// Long jobs going on now (the cooperative pool's), by thread.
    private var jobEpisodes: [Int32: StallEpisode] = [:]
    /// The begin of each thread's latest busy period the looks concluded before the target told it
    /// ended, which a later look must not report again: a pool job that ends between a look's two
    /// reads is in neither (one handler's sleep recorded twice in a 30-minute soak, 2026-12-07); a
    /// heartbeat tells every long busy period ended, to be timed only when no look did.
    private var concludedBeforeTold: [Int32: UInt64] = [:]
    /// The watched thread's CPU time at the latest look that found no busy period going on. One
    /// found later began after it: what a late look excuses from that one is bounded from it too
    /// (``offCPUBound(_:now:)``), the thread taken as off its CPU until the period began.
    private var idleTargetCPU: (at: UInt64, cpu: Int64)?

    /// `observer` (the virtual-time tests') stands for the target's own.
    init(
        watchdog: Watchdog, slot: Int32, stopRequest: DispatchSemaphore,
        clock: any WatchdogClock = SystemWatchdogClock(), reader: (any StalledThreadReader)? = nil,
        observer: (any TargetObserver)? = nil
    ) {
        self.watchdog = watchdog
        self.clock = clock
        configuration = watchdog.configuration
        intervals = WatchdogIntervals(configuration)
        self.slot = slot
        self.stopRequest = stopRequest
        outlets = StallOutlets(configuration: configuration) { [failures = watchdog.outletFailuresCounter] in
            failures.add()
        }
        self.observer = observer ?? watchdog.target.makeObserver(configuration: configuration, intervals: intervals)
        self.reader =
            reader ?? SignalSampler(configuration: configuration, slot: slot, sampleInterval: intervals.sampleInterval)
    }

    /// Sets up what watching needs, on the starting thread, which then lets go of the loop for the
    /// thread that runs it. Returns what the watchdog cannot see here.
    func prepare() -> [String] {
        ownership.check()
        defer { ownership.release() }
        var limitations = observer.prepare()
        if clock is SystemWatchdogClock, let missing = Self.runQueueWaitMissing { limitations.append(missing) }
        // The first ping goes out before `start()` returns: work submitted after it queues behind
        // the ping, so the target's thread is known from its first stall on.
        begin()
        return limitations
    }

    /// Why a late look cannot be told from a paused process here, nil when it can.
    static let runQueueWaitMissing: String? =
        access("/proc/thread-self/schedstat", R_OK) == 0
        ? nil
        : "a busy machine cannot be told from a paused process (/proc/thread-self/schedstat: \(String(cString: strerror(errno)))): a look later than half the threshold is excused as a pause, so stalls while every CPU is busy may go unreported"

    func run() {
        ownership.take()
        defer {
            observer.finish()
            cprobe_slot_release(slot)
            cprobe_uninstall_handler(configuration.signal)
        }
        FramePointerCode.publishInBackground()
        while !stopping.load(ordering: .acquiring) {
            if isResting {
                // Nothing to time: the resting clock looks for this watchdog, and wakes it (or stop()
                // does). The time parked is no pause of the target's.
                ownership.release()
                RestingClock.shared.park(self)
                stopRequest.wait()
                RestingClock.shared.unpark(self)
                ownership.take()
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
        ownership.check()
        let now = clock.monotonicNanoseconds()
        observer.begin(now: now)
        pauses = PauseDetector(monotonic: now, boot: clock.bootTimeNanoseconds())
        expectedWake = now + intervals.tick
    }

    /// When the next look is due while not resting: the next tick, or an episode's next sample.
    var nextWake: UInt64 {
        ownership.check()
        var wake = expectedWake
        if let next = episode?.nextSample { wake = min(wake, next) }
        for job in jobEpisodes.values { wake = min(wake, job.nextSample ?? wake) }
        return wake
    }

    /// One look, woken for the look due at `wake` (``nextWake``).
    func look(scheduledFor wake: UInt64) {
        ownership.check()
        let now = clock.monotonicNanoseconds()
        // A late wake-up of this thread, or a suspended machine, is time the watched thread could
        // not run either, but for the part spent waiting for a CPU (`PauseDetector`). The target was
        // seen busy (or a ping out) at the previous look: the pause counts from due.
        let pause = pauses.look(
            monotonic: now, boot: clock.bootTimeNanoseconds(), runQueueWait: clock.runQueueWaitNanoseconds(),
            due: wake, since: wake)
        observe(now: now, excuse: pause.excused(tolerance: intervals.pauseTolerance))
        if now >= expectedWake { expectedWake = clock.monotonicNanoseconds() + intervals.tick }
    }

    /// Back from resting (the resting clock saw something to time): a look at once. The time parked
    /// is no pause of the target's; a pause of the process the resting clock saw before its look is.
    func resumeFromRest() {
        ownership.check()
        let now = clock.monotonicNanoseconds()
        pauses = PauseDetector(
            monotonic: now, boot: clock.bootTimeNanoseconds(), runQueueWait: clock.runQueueWaitNanoseconds())
        observe(now: now, excuse: pauseWhileResting)
        pauseWhileResting = .none
        expectedWake = now + intervals.tick
    }

    /// At stop: a stall that ended before the stop is recorded as ended, with its real duration;
    /// one still going on is recorded as ongoing.
    func end() {
        ownership.check()
        observe(now: clock.monotonicNanoseconds(), excuse: .none, stopping: true)
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

    /// Nothing going on: no busy period, no ping out, no long pool job.
    var isResting: Bool {
        ownership.check()
        return episode == nil && jobEpisodes.isEmpty && !observer.isTiming
    }

    /// The resting clock's look at a parked loop, which it owns for the look (the loop's thread
    /// waits): true when there is something to time, which the loop's own thread then does.
    /// `pause`: what the clock's own ``PauseDetector`` saw before this look. A busy period found
    /// now began after the clock's previous look, so all of it is excused when the look was late.
    func needsItsThread(now: UInt64, pause: Pause = .none) -> Bool {
        ownership.take()
        defer { ownership.release() }
        pauseWhileResting = pause.excused(tolerance: intervals.pauseTolerance)
        let look = observer.restingLook(now: now)
        if look.sawWork { lastWorkSeen.store(now, ordering: .relaxed) }
        if !look.needsTheLoop { readIdleTargetCPU(now: now) }
        return look.needsTheLoop
    }

    /// The interval to the resting clock's next look at this watchdog's target. Reads nothing
    /// owned: any thread may ask.
    func restingTick(now: UInt64) -> UInt64 {
        let seen = lastWorkSeen.load(ordering: .relaxed)
        return intervals.resting.interval(now: now, lastWorkSeen: seen == 0 ? nil : seen)
    }

    /// Episodes are changed in place, never copied whole: each holds its samples.
    private func observe(now: UInt64, excuse: Excuse, stopping: Bool = false) {
        let busy = observer.busyPeriod(now: now)
        if let since = episode?.busySince, busy?.since != since, let ended = episode {
            // The busy period ended (or a new one began): one report per stall, at its end.
            episode = nil
            if let thread = ended.threadID { concludedBeforeTold[thread] = since }
            let exact = observer.busyEnd(of: since)
            conclude(
                ended, end: exact ?? end(of: ended, recorded: observer.lastBusyEnd, now: now), endIsExact: exact != nil,
                now: now, excuse: excuse)
        }
        if let busy, !stopping {
            if episode == nil {
                episode = StallEpisode(
                    busySince: busy.since, threadID: busy.thread, firstSeen: now,
                    cpuAtFirstSeen: busy.thread.flatMap(reader.cpuNanoseconds(of:)),
                    isPoolStarvation: busy.isPoolStarvation, seenAt: clock.date())
                if let reading = idleReading(thread: busy.thread, since: busy.since, now: now) {
                    episode!.cpuReading = reading
                }
            } else if let thread = busy.thread, thread != episode?.threadID {
                // A queue's drain thread may only be known (or change) after the first look: CPU
                // time is then counted for the thread seen now, from now.
                episode!.threadID = thread
                episode!.firstSeen = now
                episode!.cpuAtFirstSeen = reader.cpuNanoseconds(of: thread)
                episode!.cpuReading = episode!.cpuAtFirstSeen.map { (now, $0) }
            }
            advance(&episode!, now: now, excuse: excuse)
        }
        observeJobs(now: now, excuse: excuse, stopping: stopping)
        if episode == nil, !stopping { readIdleTargetCPU(now: now) }
    }

    private func readIdleTargetCPU(now: UInt64) {
        idleTargetCPU = observer.watchedThread.flatMap(reader.cpuNanoseconds(of:)).map { (now, $0) }
    }

    /// The CPU reading a busy period of `thread` that began at `since`, first found at `now`, is
    /// bounded from: the idle look's before it, as of its begin; nil when there is none.
    private func idleReading(thread: Int32?, since: UInt64, now: UInt64) -> (at: UInt64, cpu: Int64)? {
        guard since < now, let thread, thread == observer.watchedThread, let idle = idleTargetCPU, idle.at <= since
        else { return nil }
        return (since, idle.cpu)
    }

    /// Long jobs (the pool's): each thread inside one job for half the threshold is an episode of
    /// its own, sampled like a stalled event loop. While the whole target is starved, its long jobs
    /// are that starvation (its record holds each thread's stack) and are not reported again.
    private func observeJobs(now: UInt64, excuse: Excuse, stopping: Bool) {
        // Ended jobs first: a job that ends between the two reads is then still running in the second.
        var ended = observer.endedJobs(now: now)
        let jobs = observer.longJobs(now: now)
        if jobs.isEmpty, jobEpisodes.isEmpty, ended.isEmpty { return }
        for (thread, job) in jobEpisodes
        where !jobs.contains(where: { $0.thread == thread && $0.since == job.busySince }) {
            if let index = ended.firstIndex(where: { $0.thread == thread && $0.since == job.busySince }) {
                conclude(job, end: ended[index].end, endIsExact: true, now: now, excuse: excuse)
                ended.remove(at: index)
            } else {
                conclude(job, end: end(of: job, recorded: observer.lastJobEnd(of: thread), now: now))
                concludedBeforeTold[thread] = job.busySince
            }
            jobEpisodes[thread] = nil
        }
        ended.removeAll { job in
            // The target's own busy period, which the looks still time.
            if episode?.threadID == job.thread && episode?.busySince == job.since { return true }
            if concludedBeforeTold[job.thread] == job.since {
                concludedBeforeTold[job.thread] = nil
                return true
            }
            return jobEpisodes[job.thread]?.busySince == job.since
        }
        if !ended.isEmpty { recordUnseen(ended, now: now, excuse: excuse) }
        guard !stopping else { return }
        let starved = episode?.confirmed == true
        for job in jobs {
            guard let thread = job.thread else { continue }
            if jobEpisodes.index(forKey: thread) == nil {
                jobEpisodes[thread] = StallEpisode(
                    busySince: job.since, threadID: thread, firstSeen: now,
                    cpuAtFirstSeen: reader.cpuNanoseconds(of: thread), seenAt: clock.date())
            }
            if starved { jobEpisodes[thread]!.absorbed = true }
            advance(&jobEpisodes[thread]!, now: now, excuse: excuse)
        }
    }

    /// When an episode's busy period ended: as the target recorded it when that falls within the
    /// episode, `now` otherwise.
    private func end(of episode: StallEpisode, recorded: UInt64?, now: UInt64) -> UInt64 {
        guard let recorded, recorded > episode.busySince, recorded <= now else { return now }
        return recorded
    }

    /// The end of an episode: its final report when it was a stall. One the looks never saw past the
    /// threshold is a stall too when the target recorded its end (`endIsExact`) that far from its
    /// begin, less the pauses seen (a 150 ms starvation whose looks came early and late, 2026-12-06).
    private func conclude(
        _ stall: StallEpisode, end: UInt64, endIsExact: Bool = false, now: UInt64 = 0, excuse: Excuse = .none
    ) {
        if stall.confirmed, !stall.absorbed {
            finish(stall, ongoing: false, now: end)
            return
        }
        if !stall.confirmed, !stall.absorbed, endIsExact {
            var timed = stall
            if confirmAfterItsEnd(&timed, end: end, now: now, excuse: excuse) {
                let sampled = timed.samples.sampleCount > 0 || timed.poolThreads.contains { $0.samples.sampleCount > 0 }
                finish(timed, ongoing: false, now: end, unsampled: sampled ? nil : Self.unsampledReason)
                return
            }
            noteExcused(timed, end: end)
            return
        }
        if !stall.confirmed, !stall.absorbed { noteExcused(stall, end: end) }
    }

    /// A busy period that lasted the threshold yet is no stall, for what was excused from it, is
    /// counted, logged and measured: a stall missed for an excuse is never silent.
    private func noteExcused(_ episode: StallEpisode, end: UInt64) {
        let elapsed = end.saturatingSubtract(episode.busySince)
        guard episode.pausedDuring, elapsed >= intervals.threshold else { return }
        watchdog.notePauseIgnored()
        outlets.deliverExcused(
            thread: episode.threadID, duration: elapsed, excused: min(episode.excused, elapsed),
            paused: episode.excusedAPause, threshold: intervals.threshold)
    }

    /// At most the time `episode`'s thread spent off its CPU since its previous CPU reading (taken
    /// again now): a pause or a wait for a CPU stopped the target only while it was off its CPU. A
    /// spinning loop that ran while the looking thread waited for a CPU was excused whole before.
    /// Unbounded (`.max`) without an earlier reading: a pool starvation, or a look at first sight.
    private func offCPUBound(_ episode: inout StallEpisode, now: UInt64) -> UInt64 {
        guard !episode.isPoolStarvation, let thread = episode.threadID, let reading = episode.cpuReading,
            reading.at < now, let cpu = reader.cpuNanoseconds(of: thread)
        else { return .max }
        episode.cpuReading = (now, cpu)
        return now.saturatingSubtract(reading.at).saturatingSubtract(UInt64(max(0, cpu - reading.cpu)))
    }

    /// Confirms `stall`, which ended at `end` before this look (at `now`), when it lasted the threshold
    /// less what was excused: its own pauses and the part of this look's `excuse` (the time before
    /// `now`) that falls inside it.
    private func confirmAfterItsEnd(_ stall: inout StallEpisode, end: UInt64, now: UInt64, excuse: Excuse) -> Bool {
        var pause = excuse.paused
        if excuse.waitedForCPU > 0, !stall.isPoolStarvation { pause += excuse.waitedForCPU }
        if pause > 0 { pause = min(pause, offCPUBound(&stall, now: now)) }
        let overlap = min(end, now).saturatingSubtract(max(stall.busySince, now.saturatingSubtract(pause)))
        if overlap > 0 {
            stall.excused += overlap
            stall.pausedDuring = true
            if excuse.paused > 0 { stall.excusedAPause = true }
        }
        let elapsed = end.saturatingSubtract(stall.busySince)
        guard elapsed.saturatingSubtract(stall.excused) >= intervals.threshold else { return false }
        stall.confirmed = true
        return true
    }

    /// Long jobs that began and ended between two looks: a stall each when they lasted the threshold,
    /// one starvation when every pool thread was inside one at once that long. No samples of their
    /// own (a flight recorder's lead-up may hold their stacks), which the record says.
    private func recordUnseen(_ jobs: [EndedJob], now: UInt64, excuse: Excuse) {
        func episode(since: UInt64, thread: Int32?, starved: Bool) -> StallEpisode {
            var unseen = StallEpisode(
                busySince: since, threadID: thread, firstSeen: now, cpuAtFirstSeen: nil, isPoolStarvation: starved,
                seenAt: clock.date())
            unseen.cpuReading = starved ? nil : idleReading(thread: thread, since: since, now: now)
            return unseen
        }
        var jobs = jobs
        if let starvation = observer.starvation(among: jobs) {
            var starved = episode(since: starvation.since, thread: nil, starved: true)
            starved.poolThreads = starvation.threads.map { PoolThreadSamples(thread: $0) }
            if confirmAfterItsEnd(&starved, end: starvation.end, now: now, excuse: excuse) {
                // Its jobs are that starvation, as a starvation's long jobs are while it is watched.
                let held = Set(starvation.threads.map(\.id))
                jobs.removeAll { held.contains($0.thread) }
                finish(starved, ongoing: false, now: starvation.end, unsampled: Self.unsampledReason)
            } else {
                noteExcused(starved, end: starvation.end)
            }
        }
        for job in jobs.sorted(by: { $0.since < $1.since }) {
            var stall = episode(since: job.since, thread: job.thread, starved: false)
            if confirmAfterItsEnd(&stall, end: job.end, now: now, excuse: excuse) {
                finish(stall, ongoing: false, now: job.end, unsampled: Self.unsampledReason)
            } else {
                noteExcused(stall, end: job.end)
            }
        }
    }

    static let unsampledReason =
        "it ended before the watchdog's look that would have sampled it: timed from the target's own stamps (a pool job's begin and end, a ping's sending and arrival, a heartbeat's busy and idle)"

    /// One look at a busy period: paused time excused, confirmed past the threshold, sampled from
    /// half of it (wall time), reported early when `reportOngoingAfter` says so.
    private func advance(_ current: inout StallEpisode, now: UInt64, excuse: Excuse) {
        var pause = excuse.paused
        if excuse.waitedForCPU > 0, waitsForCPU(current) { pause += excuse.waitedForCPU }
        if pause > 0 { pause = min(pause, offCPUBound(&current, now: now)) }
        if pause > 0 {
            // Only the part of the pause inside this busy period is excused.
            current.excused += min(pause, now.saturatingSubtract(current.busySince))
            current.pausedDuring = true
            if excuse.paused > 0 { current.excusedAPause = true }
        }
        let elapsed = now.saturatingSubtract(current.busySince)
        let effective = elapsed > current.excused ? elapsed - current.excused : 0
        current.lastSeen = now
        if effective >= intervals.threshold, !current.confirmed {
            current.confirmed = true
            // Profiles label their samples inside it (`stall_id`); a virtual clock's stall has none.
            if clock is SystemWatchdogClock, let thread = current.threadID, !current.isPoolStarvation {
                StallWindows.begin(
                    thread: thread, id: StallWindows.id(watchdog: configuration.name, start: current.startDate),
                    start: current.busySince)
            }
        }
        // Sampled from half the threshold of wall time, as a pool's jobs are: time excused from the
        // stall's length (a pause, this thread's waits for a CPU) does not put off its evidence, and
        // a busy period that never becomes a stall drops its samples.
        if elapsed >= intervals.samplingAge, now >= current.nextSampleAt, !current.samplingDone {
            if !current.sampling {
                current.sampling = true
                current.samplingSince = now
            }
            observer.sample(&current, with: reader, now: now, limit: configuration.maxSamplesPerStall)
            // On schedule, not from now: a late wake-up does not stretch the interval for good.
            let interval = intervals.sampleInterval
            current.nextSampleAt = max(current.nextSampleAt + interval, now + interval / 2)
        }
        if current.confirmed, !current.reported, !current.absorbed, let after = intervals.reportOngoingAfter,
            effective >= after
        {
            finish(current, ongoing: true, now: now, early: true)
            current.reported = true
        }
    }

    /// Whether a busy period's thread could have been waiting for a CPU, as the late look's thread
    /// was: not a starved pool (its threads are held by jobs) nor a thread asleep in a wait (read
    /// from /proc at such a look only). A queue whose thread is not known yet may be.
    private func waitsForCPU(_ episode: StallEpisode) -> Bool {
        guard !episode.isPoolStarvation else { return false }
        guard let thread = episode.threadID else { return true }
        return !reader.isAsleep(thread)
    }

    private func finish(
        _ episode: StallEpisode, ongoing: Bool, now: UInt64, early: Bool = false, unsampled: String? = nil
    ) {
        var record = StallBuilder.record(
            for: episode, watchdog: configuration.name, threshold: intervals.threshold, ongoing: ongoing, now: now,
            cpuNow: unsampled == nil ? episode.threadID.flatMap(reader.cpuNanoseconds(of:)) : nil,
            symbolicator: Symbolicator.shared)
        record.unsampled = unsampled
        // The flight recorder's samples are on CLOCK_MONOTONIC: a virtual clock's stall has none.
        if clock is SystemWatchdogClock, let recorder = FlightRecorder.running {
            let threads = episode.isPoolStarvation ? Set(episode.poolThreads.map(\.thread.id)) : [record.threadID]
            record.before = recorder.leadUp(
                threads: threads, stallStart: episode.busySince, until: now, symbolicator: Symbolicator.shared)
        }
        if !early, let thread = episode.threadID { StallWindows.end(thread: thread, start: episode.busySince, at: now) }
        // A stall reported early (`reportOngoingAfter`) is counted once, at that report.
        let isFinalOfReported = episode.reported
        if !isFinalOfReported { watchdog.record(record) } else { watchdog.replaceLatest(with: record) }
        outlets.deliver(record, counted: !isFinalOfReported, early: early)
    }
}
