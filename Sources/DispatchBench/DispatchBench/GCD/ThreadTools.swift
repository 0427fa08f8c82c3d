import Foundation
import Harness

/// `count` threads, made once (outside the timed region), that each run `body(threadIndex)` when
/// asked and report back. Real threads, not the GCD pool, so "4 threads" means four threads
/// contending; and no thread creation inside the measurement. The threads wait at a `StartLine`
/// for each other before running the work, so that they run it at the same time.
final class ThreadGang: @unchecked Sendable {
    let count: Int
    private let start: [DispatchSemaphore]
    private let startLine: StartLine
    private let done = DispatchSemaphore(value: 0)
    // Written before the start semaphores are signalled, read after: the semaphores order them.
    private var work: (@Sendable (Int) -> Void)?
    private var stopping = false
    /// How many times `run` has started the threads.
    private(set) var runs = 0

    init(count: Int) {
        self.count = count
        start = (0..<count).map { _ in DispatchSemaphore(value: 0) }
        startLine = StartLine(count: count)
        for index in 0..<count {
            Thread { [self] in loop(index) }.start()
        }
    }

    private func loop(_ index: Int) {
        while true {
            start[index].wait()
            if stopping {
                done.signal()
                return
            }
            startLine.arrive()
            work?(index)
            done.signal()
        }
    }

    /// Runs `body` on every thread of the gang at once; returns when all have finished.
    func run(_ body: @escaping @Sendable (Int) -> Void) {
        runs += 1
        work = body
        startLine.reset()
        for semaphore in start { semaphore.signal() }
        for _ in 0..<count { done.wait() }
    }

    /// Ends the threads. The gang cannot be used afterwards.
    func stop() {
        stopping = true
        for semaphore in start { semaphore.signal() }
        for _ in 0..<count { done.wait() }
    }
}

/// Number of threads of this process right now (entries of /proc/self/task).
func currentThreadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
}

/// Samples the process's thread count every millisecond on its own thread until stopped, and
/// keeps the peak.
final class ThreadCountSampler: @unchecked Sendable {
    private let lock = NSLock()
    private var running = true
    private var peakCount = 0
    let baseline: Int

    init() {
        baseline = currentThreadCount()
        peakCount = baseline
        let thread = Thread { [self] in
            while lock.withLock({ running }) {
                let count = currentThreadCount()
                lock.withLock { peakCount = max(peakCount, count) }
                usleep(1000)
            }
        }
        thread.start()
    }

    var peak: Int { lock.withLock { peakCount } }

    func stop() { lock.withLock { running = false } }
}

/// Counts how many work items run at the same time, and the most that ever did.
final class ConcurrencyGauge: @unchecked Sendable {
    private let lock = NSLock()
    private var active = 0
    private var maximum = 0
    private var batchMaximum = 0
    private var batchPeaks: [Int] = []

    func enter() {
        lock.withLock {
            active += 1
            maximum = max(maximum, active)
            batchMaximum = max(batchMaximum, active)
        }
    }

    func leave() { lock.withLock { active -= 1 } }

    /// Closes a batch of work items: its peak joins `medianBatchPeak`.
    func endBatch() {
        lock.withLock {
            batchPeaks.append(batchMaximum)
            batchMaximum = active
        }
    }

    var peak: Int { lock.withLock { maximum } }

    /// The peak of a typical batch (nil before the first batch ends).
    var medianBatchPeak: Int? {
        lock.withLock {
            guard !batchPeaks.isEmpty else { return nil }
            return batchPeaks.sorted()[batchPeaks.count / 2]
        }
    }
}

/// Burns CPU for `microseconds` (work that holds a core, unlike sleeping).
func spin(microseconds: Double) {
    let end = DispatchTime.now().uptimeNanoseconds + UInt64(microseconds * 1000)
    while DispatchTime.now().uptimeNanoseconds < end {}
}

/// Burns `microseconds` of this thread's CPU time: work that is only done while the thread runs, so
/// a thread the scheduler preempts finishes later, as real computation would.
func spinOnCPU(microseconds: Double) {
    let nanoseconds = UInt64(microseconds * 1000)
    let start = MonotonicClock.threadCPU()
    while MonotonicClock.threadCPU() - start < nanoseconds {}
}

/// The calling thread's nice value (on Linux, `PRIO_PROCESS` with id 0 names the calling thread),
/// or nil if it cannot be read.
func currentThreadNice() -> Int? {
    errno = 0
    let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
    return nice == -1 && errno != 0 ? nil : Int(nice)
}

let processorCount = ProcessInfo.processInfo.activeProcessorCount
