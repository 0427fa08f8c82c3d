import CProbe

/// Swift concurrency jobs as the cooperative pool's threads run them: which thread is inside a
/// job, since when (see `PoolJobs.c` for how the jobs are timed). A job that holds its thread
/// longer than the threshold — a request handler blocking in a plain `async` function — is a
/// stall of that thread even while the rest of the pool is free, which a starvation ping cannot
/// see.
enum PoolJobs {
    /// The raw task priorities whose queues are learned: background, utility, medium, high and
    /// user-interactive (`JobPriority`); a job of another priority runs untimed, the runtime's way.
    static let priorities: [UInt8] = [0x09, 0x11, 0x15, 0x19, 0x21]

    /// One pool thread that is inside a job.
    struct Busy: Equatable {
        var thread: Int32
        /// When its job began (CLOCK_MONOTONIC_COARSE ns: within a kernel tick of CLOCK_MONOTONIC).
        var since: UInt64
    }

    /// A thread's latest kept long job (``keepJobs(atLeast:)``), ended.
    struct Ended: Equatable {
        var thread: Int32
        var since: UInt64
        var end: UInt64
        /// Long jobs this thread has ended so far, this one included.
        var count: UInt64
    }

    /// Each thread keeps its latest job of at least `nanoseconds` (the shortest any watchdog asks).
    static func keepJobs(atLeast nanoseconds: UInt64) { cprobe_pool_jobs_keep_long_jobs(nanoseconds) }

    /// Every tracked thread's latest kept long job.
    static func ended() -> [Ended] {
        var result: [Ended] = []
        forEachThread { entry in
            if entry.long_jobs > 0 {
                result.append(
                    Ended(thread: entry.tid, since: entry.long_since, end: entry.long_end, count: entry.long_jobs))
            }
        }
        return result
    }

    /// Long jobs kept by the threads alive now, together: a change means one ended.
    static var endedCount: UInt64 { cprobe_pool_jobs_long_jobs_total() }

    /// Installs the hook (reference counted) and learns the runtime's queues; returns why jobs
    /// cannot be timed here, or nil when they can.
    static func start(signal: Int32) -> String? {
        switch Int(cprobe_pool_jobs_install(signal)) {
        case Int(CPROBE_POOL_JOBS_INSTALLED):
            learnQueues()
            return nil
        case Int(CPROBE_POOL_JOBS_HOOK_TAKEN):
            return
                "another hook on Swift concurrency's global executor is installed (SwiftNIO's global-executor takeover?): long jobs on the cooperative pool are not timed, only its starvation is watched"
        default:
            return
                "long jobs on the cooperative pool are timed on Linux x86-64 and arm64 only: only its starvation is watched"
        }
    }

    static func stop() { cprobe_pool_jobs_uninstall() }

    /// What keeps jobs from being timed while the hook is installed: no queue learned for default
    /// priority a second after the start (a runtime whose queue is not the one expected), threads
    /// beyond the entries, jobs whose priority byte was not one the runtime uses.
    static func shortcomings(startedAt: UInt64) -> [String] {
        var found: [String] = []
        if !times(priority: .medium), cprobe_monotonic_ns().saturatingSubtract(startedAt) > 1_000_000_000 {
            found.append(
                "default-priority jobs are not timed: no job of that priority ran on a queue labelled \"Swift global concurrent queue\" (a runtime that enqueues jobs otherwise?)"
            )
        }
        let untracked = cprobe_pool_jobs_untracked_threads()
        if untracked > 0 {
            found.append(
                "\(untracked) pool threads ran jobs untimed: more than \(CPROBE_MAX_POOL_THREADS) were alive at once")
        }
        let unrecognised = cprobe_pool_jobs_unrecognised()
        if unrecognised > 0 {
            found.append(
                "\(unrecognised) jobs ran untimed: their priority byte was none the runtime uses (the job layout is not the one expected)"
            )
        }
        return found
    }

    /// One detached task per priority records the queue it runs on. Until a priority's task has
    /// run, that priority's jobs run the runtime's way (untimed).
    private static func learnQueues() {
        for priority in priorities where cprobe_pool_jobs_knows_priority(Int32(priority)) == 0 {
            Task.detached(priority: TaskPriority(rawValue: priority)) {
                _ = cprobe_pool_jobs_learn_queue(Int32(priority))
            }
        }
    }

    /// True once jobs of `priority` are timed.
    static func times(priority: TaskPriority) -> Bool {
        cprobe_pool_jobs_installed() != 0 && cprobe_pool_jobs_knows_priority(Int32(priority.rawValue)) != 0
    }

    /// Every tracked thread inside a job now.
    static func busy() -> [Busy] {
        var result: [Busy] = []
        forEachThread { entry in
            let since = entry.job_since
            if since != 0 { result.append(Busy(thread: entry.tid, since: since)) }
        }
        return result
    }

    /// How many tracked threads are inside a job now, and when the oldest of those jobs began.
    static func busySummary() -> (count: Int, oldestSince: UInt64?) {
        var oldest: UInt64 = 0
        let count = Int(cprobe_pool_jobs_busy_summary(&oldest))
        return (count, oldest == 0 ? nil : oldest)
    }

    /// Every thread that runs jobs through the trampoline, busy or not.
    static func threads() -> [Int32] {
        var result: [Int32] = []
        forEachThread { result.append($0.tid) }
        return result
    }

    /// When `thread` last ended a job (CLOCK_MONOTONIC ns), or nil when it is not tracked.
    static func lastEnd(of thread: Int32) -> UInt64? {
        var end: UInt64?
        forEachThread { if $0.tid == thread { end = $0.last_end } }
        return end
    }

    /// Jobs run through the trampoline by threads alive now.
    static func jobsRun() -> UInt64 {
        var total: UInt64 = 0
        forEachThread { total += $0.jobs }
        return total
    }

    private static func forEachThread(_ body: (cprobe_pool_thread) -> Void) {
        var entry = cprobe_pool_thread()
        for index in 0..<cprobe_pool_jobs_entry_count()
        where cprobe_pool_jobs_entry(index, &entry) == 0 && entry.tid != 0 {
            body(entry)
        }
    }
}
