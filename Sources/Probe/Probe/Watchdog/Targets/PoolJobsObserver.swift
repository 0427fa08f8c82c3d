import Foundation

/// Swift concurrency's cooperative pool: each job that holds a pool thread for half the threshold
/// is a busy period of that thread (``PoolJobs``), and pings that cannot start mean the whole pool
/// is starved (``CooperativePoolPinger``), every pool thread sampled. Without job timing (another
/// hook on the global executor, an unsupported platform) only starvation is watched.
final class PoolJobsObserver: TargetObserver {
    private let pool: CooperativePoolPinger
    private var pings: Pings
    private let intervals: WatchdogIntervals
    private let signal: Int32
    /// True while the pool's jobs are timed: the pool is then pinged only when every thread is busy.
    private var timesJobs = false
    /// The pool's width (the runtime's queues run as many jobs at once as there are CPUs), read
    /// once: each read costs syscalls.
    private let poolWidth = ProcessInfo.processInfo.activeProcessorCount

    init(pinger: CooperativePoolPinger, configuration: WatchdogConfiguration, intervals: WatchdogIntervals) {
        pool = pinger
        pings = Pings(pinger: pinger, configuration: configuration)
        self.intervals = intervals
        signal = configuration.signal
    }

    func prepare() -> [String] {
        if let reason = PoolJobs.start(signal: signal) { return [reason] }
        timesJobs = true
        PoolJobs.keepJobs(atLeast: intervals.samplingAge)
        endedSeen = PoolJobs.endedCount
        for job in PoolJobs.ended() { endedCounts[job.thread] = job.count }
        return []
    }

    /// The kept long jobs already seen, by thread, and all together (``PoolJobs/endedCount``).
    private var endedCounts: [Int32: UInt64] = [:]
    private var endedSeen: UInt64 = 0

    func finish() {
        if timesJobs { PoolJobs.stop() }
    }

    /// Timed jobs prepare each pool thread for sampling as it runs its first job; otherwise the
    /// pool's threads are prepared here (and again while no ping is out).
    func begin(now: UInt64) {
        if !timesJobs { pool.prepareThreads(now: now) }
        sendPing(now: now)
    }

    var isTiming: Bool { pings.outstanding }

    func busyPeriod(now: UInt64) -> BusyPeriod? {
        if pings.collect(now: now) { lastCollected = CollectedBusyPeriod(since: starvedSince, arrived: pool.arrivedAt) }
        if !pings.outstanding, !timesJobs { pool.prepareThreads(now: now) }
        if !pings.outstanding, pings.isDue(now: now, interval: pingInterval) { sendPing(now: now) }
        return pings.outstanding ? BusyPeriod(since: starvedSince, thread: nil, isPoolStarvation: true) : nil
    }

    /// When the starvation the outstanding ping times began: its sending, or earlier when every
    /// pool thread was already inside a job then. Fixed per ping, so the busy period keeps its start.
    private var starvedSince: UInt64 = 0

    private func sendPing(now: UInt64) {
        pings.send(now: now)
        let busy = timesJobs ? PoolJobs.busy().filter { !ProbeThreads.contains($0.thread) } : []
        starvedSince = Self.starvationStart(pingSentAt: now, busy: busy, poolWidth: poolWidth)
    }

    /// A ping sent while all `poolWidth` threads are inside jobs waits from the moment the last of
    /// them began: no job could start since (jobs of other priorities counted too, so the newest
    /// start of all, the latest such moment). Timing from the ping instead loses up to a ping
    /// interval, more when the watchdog's thread wakes late on a loaded machine — a 156 ms
    /// starvation then measured 96 ms and came out as two 160 ms long jobs (soak under wrk, 2026-11-29).
    static func starvationStart(pingSentAt: UInt64, busy: [PoolJobs.Busy], poolWidth: Int) -> UInt64 {
        guard poolWidth > 0, busy.count >= poolWidth, let newest = busy.map(\.since).max() else { return pingSentAt }
        return min(pingSentAt, newest)
    }

    var lastBusyEnd: UInt64? { pool.arrivedAt }

    /// The latest ping collected: when the starvation it timed began and when it ran.
    private var lastCollected: CollectedBusyPeriod?

    func busyEnd(of since: UInt64) -> UInt64? { lastCollected?.end(of: since) }

    /// A thread's kept job is new when its count rose; a thread new to the watchdog (its entry's
    /// count starts at 0) brings all its jobs, none older than the watchdog (kept from its start).
    func endedJobs(now: UInt64) -> [EndedJob] {
        guard timesJobs else { return [] }
        let total = PoolJobs.endedCount
        guard total != endedSeen else { return [] }
        endedSeen = total
        var fresh: [EndedJob] = []
        var counts: [Int32: UInt64] = [:]
        for job in PoolJobs.ended() {
            counts[job.thread] = job.count
            guard job.count > endedCounts[job.thread] ?? 0, !ProbeThreads.contains(job.thread) else { continue }
            fresh.append(EndedJob(thread: job.thread, since: job.since, end: job.end))
        }
        endedCounts = counts
        return fresh
    }

    /// The longest time all `poolWidth` pool threads were inside `jobs` at once, with those threads.
    func starvation(among jobs: [EndedJob]) -> EndedStarvation? {
        guard let (since, end, held) = Self.longestOverlap(of: jobs, width: poolWidth) else { return nil }
        let threads = held.map { PoolThread(id: $0, name: CooperativePoolThreads.name(of: $0) ?? "") }
        return EndedStarvation(since: since, end: end, threads: threads)
    }

    /// The longest span in which `width` of `jobs` (one a thread) ran at once: from the latest begin
    /// among them to the earliest end; nil when fewer than `width` overlap at all.
    static func longestOverlap(of jobs: [EndedJob], width: Int) -> (since: UInt64, end: UInt64, threads: [Int32])? {
        guard width > 0, jobs.count >= width else { return nil }
        var best: (since: UInt64, end: UInt64, threads: [Int32])?
        for start in jobs.map(\.since) {
            // The jobs running at `start`, longest-lasting first: the pool was full until the
            // `width`-th of them ended.
            let running = jobs.filter { $0.since <= start && $0.end > start }.sorted { $0.end > $1.end }
            guard running.count >= width else { continue }
            let held = running.prefix(width)
            let end = held.last!.end
            if end - start > (best.map { $0.end - $0.since } ?? 0) {
                best = (start, end, held.map(\.thread))
            }
        }
        return best
    }

    func longJobs(now: UInt64) -> [BusyPeriod] {
        guard timesJobs else { return [] }
        return PoolJobs.busy().compactMap { job in
            guard now.saturatingSubtract(job.since) >= intervals.samplingAge, !ProbeThreads.contains(job.thread)
            else { return nil }
            return BusyPeriod(since: job.since, thread: job.thread)
        }
    }

    func lastJobEnd(of thread: Int32) -> UInt64? { PoolJobs.lastEnd(of: thread) }

    /// A starvation: every pool thread is sampled; a thread seen for the first time joins the
    /// episode (the pool may grow or replace threads while starved).
    func sample(_ episode: inout StallEpisode, with reader: any StalledThreadReader, now: UInt64, limit: Int) {
        guard episode.isPoolStarvation else {
            return episode.sampleItsThread(with: reader, now: now, limit: limit)
        }
        var threads = pool.poolThreads() ?? []
        if timesJobs {
            let known = Set(threads.map(\.id))
            for tid in PoolJobs.threads() where !known.contains(tid) {
                if let name = CooperativePoolThreads.name(of: tid) { threads.append(PoolThread(id: tid, name: name)) }
            }
        }
        var done = true
        for thread in threads where !ProbeThreads.contains(thread.id) {
            var entry = episode.poolThreads.first { $0.thread == thread } ?? PoolThreadSamples(thread: thread)
            guard entry.samples.sampleCount < limit else { continue }
            reader.sample(thread.id, into: &entry.samples, since: episode.samplingSince, now: now)
            if entry.samples.sampleCount < limit { done = false }
            if let index = episode.poolThreads.firstIndex(where: { $0.thread == thread }) {
                episode.poolThreads[index] = entry
            } else {
                episode.poolThreads.append(entry)
            }
        }
        episode.samplingDone = done && !threads.isEmpty
    }

    /// A job held half the threshold needs the loop's thread (a Probe thread never holds a pool
    /// job that long: its tasks are pings); so does a ping due.
    func restingLook(now: UInt64) -> RestingLook {
        var look = RestingLook.nothing
        let busy = timesJobs ? PoolJobs.busySummary() : nil  // one scan of the pool's entries a look
        if let oldest = busy?.oldestSince {
            look.sawWork = true
            if now.saturatingSubtract(oldest) >= intervals.samplingAge {
                look.needsTheLoop = true
                return look
            }
        }
        // A long job ended while the loop rested: its thread times it.
        look.needsTheLoop =
            pings.isDue(now: now, interval: pingInterval(busyThreads: busy?.count))
            || (timesJobs && PoolJobs.endedCount != endedSeen)
        return look
    }

    /// While jobs are timed and a pool thread is free, a new job can start at once: the pool is
    /// pinged seldom then, for work outside Swift concurrency (Dispatch work on the same threads)
    /// holding its threads — such a starvation is timed from a ping sent up to that interval late.
    private var pingInterval: UInt64 { pingInterval(busyThreads: timesJobs ? PoolJobs.busySummary().count : nil) }

    /// `busyThreads`: pool threads inside a timed job now; nil when jobs are not timed.
    private func pingInterval(busyThreads: Int?) -> UInt64 {
        guard let busyThreads, busyThreads < poolWidth else { return intervals.pingInterval }
        return intervals.poolPingIntervalWithFreeThreads
    }
}
