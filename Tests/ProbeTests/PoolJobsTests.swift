import CProbe
import Foundation
import Synchronization
import Testing

@testable import Probe

/// The pool's job stamps after a job ended: what a look that comes late still finds.
struct PoolJobsTests {
    private let ms: UInt64 = 1_000_000

    /// A thread's latest job of at least the kept length is kept, with its begin and end, after it
    /// ended and after shorter jobs ran on the same thread.
    @Test func aLongJobIsKeptAfterItEndsAndShortOnesDoNotReplaceIt() throws {
        PoolJobs.keepJobs(atLeast: 5 * ms)
        let thread = Mutex<Int32>(0)
        let ran = DispatchSemaphore(value: 0)
        let looked = DispatchSemaphore(value: 0)
        Thread {
            thread.withLock { $0 = cprobe_gettid() }
            cprobe_pool_jobs_run_stamped({ _ in usleep(20_000) }, nil)
            cprobe_pool_jobs_run_stamped({ _ in }, nil)
            ran.signal()
            looked.wait()
        }.start()
        ran.wait()
        defer { looked.signal() }
        let tid = thread.withLock { $0 }
        let kept = try #require(PoolJobs.ended().first { $0.thread == tid })
        #expect(kept.count == 1)
        // The coarse clock is good to a kernel tick (4 ms at HZ=250).
        #expect(kept.end - kept.since >= 15 * ms, "\(kept)")
        #expect(PoolJobs.lastEnd(of: tid)! >= kept.end)
    }

    /// Every pool thread inside a job at once is a starvation from the latest of their begins to the
    /// earliest of their ends; jobs that never all overlap are none.
    @Test func aStarvationIsTheLongestTimeEveryThreadWasInsideAJob() throws {
        let jobs = [
            EndedJob(thread: 1, since: 100 * ms, end: 260 * ms),
            EndedJob(thread: 2, since: 110 * ms, end: 250 * ms),
            EndedJob(thread: 3, since: 300 * ms, end: 400 * ms),
        ]
        let overlap = try #require(PoolJobsObserver.longestOverlap(of: jobs, width: 2))
        #expect(overlap.since == 110 * ms && overlap.end == 250 * ms)
        #expect(Set(overlap.threads) == [1, 2])
        #expect(PoolJobsObserver.longestOverlap(of: jobs, width: 3) == nil)
        let apart = [EndedJob(thread: 1, since: 0, end: 100 * ms), EndedJob(thread: 2, since: 100 * ms, end: 200 * ms)]
        #expect(PoolJobsObserver.longestOverlap(of: apart, width: 2) == nil)
    }
}
