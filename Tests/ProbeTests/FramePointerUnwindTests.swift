import Foundation
import Synchronization
import Testing

@testable @_spi(Benchmarks) import Probe

/// A thread that reaches a stack of known shape and spins there until told to stop, so that
/// samples taken one after another see the same frames.
final class SpinningThread: Sendable {
    private let stop = Atomic<Bool>(false)
    private let tid = Atomic<Int32>(0)
    private let finished = DispatchSemaphore(value: 0)

    var threadID: Int32 { tid.load(ordering: .acquiring) }

    init(_ body: @escaping @Sendable (SpinningThread) -> Void) {
        Thread { [self] in
            _ = Heartbeat.currentThread()  // prepares the thread the way a watched thread is
            body(self)
            finished.signal()
        }.start()
        while tid.load(ordering: .acquiring) == 0 { usleep(100) }
    }

    /// The body runs in a task, its jobs run by the Swift runtime (`swift_job_run`) on a thread of
    /// its own: on the cooperative pool a spinning task takes one of its two threads here, and a
    /// test blocked waiting for it on the other hung the whole test run (CI, 2026-11-28).
    init(task body: @escaping @Sendable (SpinningThread) async -> Void) {
        let executor = OwnThreadExecutor()
        Task.detached(executorPreference: executor) { [self] in
            await body(self)
            finished.signal()
            executor.stop()
        }
        while tid.load(ordering: .acquiring) == 0 { usleep(100) }
    }

    /// Called at the bottom of the stack: spins until ``finish()``.
    @inline(never)
    func spinHere() {
        tid.store(StackSampler.currentThreadID, ordering: .releasing)
        while !stop.load(ordering: .relaxed) {}
    }

    /// For a body that works instead of spinning: call first, on the thread, then loop until
    /// `shouldStop`.
    func announce() {
        tid.store(StackSampler.currentThreadID, ordering: .releasing)
    }

    var shouldStop: Bool { stop.load(ordering: .relaxed) }

    func finish() {
        stop.store(true, ordering: .relaxed)
        finished.wait()
    }
}

/// A task executor with one thread, prepared for the sampling signal as a watched thread is: it runs
/// the jobs given to it in order until stopped.
final class OwnThreadExecutor: TaskExecutor, @unchecked Sendable {  // `jobs` and `stopped` under `condition`
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    init() {
        Thread { [self] in
            _ = Heartbeat.currentThread()
            while let job = next() { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    /// The thread ends once the jobs enqueued so far have run.
    func stop() {
        condition.withLock {
            stopped = true
            condition.signal()
        }
    }

    private func next() -> UnownedJob? {
        condition.withLock {
            while jobs.isEmpty && !stopped { condition.wait() }
            return jobs.isEmpty ? nil : jobs.removeFirst()
        }
    }
}

@inline(never)
func recurseThenSpin(_ depth: Int, _ thread: SpinningThread) {
    if depth > 1 {
        recurseThenSpin(depth - 1, thread)
        blackHoleForProbeTest(depth)  // work after the call: no tail call, every level stays a frame
        return
    }
    thread.spinHere()
}

@inline(never)
func blackHoleForProbeTest(_ value: Int) {
    withExtendedLifetime(value) {}
}

/// The thread qsort calls back into: the first comparison spins.
nonisolated(unsafe) private var qsortSpinner: SpinningThread?

@inline(never)
func sortThroughLibcThenSpin(_ thread: SpinningThread) {
    qsortSpinner = thread
    var values: [Int32] = Array((0..<64).reversed())
    values.withUnsafeMutableBufferPointer { buffer in
        qsort(UnsafeMutableRawPointer(buffer.baseAddress!), buffer.count, MemoryLayout<Int32>.size) { a, b in
            if let spinner = qsortSpinner {
                qsortSpinner = nil
                recurseThenSpin(4, spinner)
            }
            return a!.load(as: Int32.self) < b!.load(as: Int32.self) ? -1 : 1
        }
    }
    blackHoleForProbeTest(Int(values[0]))
}

/// A task on the cooperative pool that spins in a synchronous call: the stack passes through the
/// concurrency runtime (C++ mixed with Swift).
@inline(never)
func spinInATask(_ thread: SpinningThread) async {
    recurseThenSpin(3, thread)
}

@Suite(.serialized)
struct FramePointerUnwindTests {
    /// Samples `thread` with both methods, several times, and returns the pairs whose
    /// interrupted instruction is the same (the spin loop has several).
    func pairs(_ thread: SpinningThread) throws -> [(fp: StackSampler.Sample, dwarf: StackSampler.Sample)] {
        let sampler = try StackSampler()
        var result: [(StackSampler.Sample, StackSampler.Sample)] = []
        for _ in 0..<200 where result.count < 20 {
            guard let fp = sampler.takeSample(threadID: thread.threadID, method: .framePointers),
                let dwarf = sampler.takeSample(threadID: thread.threadID, method: .libunwind)
            else { continue }
            if fp.stack.first == dwarf.stack.first { result.append((fp, dwarf)) }
        }
        return result
    }

    /// The pairs, after checking that each gives the same frames both ways.
    func sameFramesBothWays(_ thread: SpinningThread) throws -> [(fp: StackSampler.Sample, dwarf: StackSampler.Sample)]
    {
        let pairs = try pairs(thread)
        #expect(pairs.count >= 5)
        for (fp, dwarf) in pairs {
            #if arch(arm64)
                // glibc's arm64 thread entry (clone3's) keeps a frame record: the walk goes one frame
                // further out than libunwind, which stops at start_thread.
                let walked = fp.stack.count == dwarf.stack.count + 1 ? Array(fp.stack.dropLast()) : fp.stack
            #else
                let walked = fp.stack
            #endif
            #expect(walked == dwarf.stack, "\(names(fp.stack)) vs \(names(dwarf.stack))")
        }
        return pairs
    }

    func names(_ stack: [UInt]) -> [String] {
        Symbolicator.shared.symbolicate(stack: stack).map { $0.symbol ?? "?" }
    }

    @Test func swiftCodeKeepsFrameRecords() {
        let modules = FramePointerCode.publish()
        let executable = modules.first { $0.path == Bundle.main.executablePath }
        #expect(executable?.keepsFrameRecords == true, "\(modules)")
        let libc = modules.first { $0.path.contains("/libc.so") }
        #if arch(arm64)
            // GCC keeps frame records in non-leaf functions on arm64 by default; Debian's glibc does.
            #expect(libc?.keepsFrameRecords == true, "\(modules)")
        #else
            #expect(libc?.keepsFrameRecords == false, "\(modules)")
        #endif
    }

    @Test func deepSwiftStackGivesTheSameFramesAsLibunwind() throws {
        let thread = SpinningThread { recurseThenSpin(60, $0) }
        defer { thread.finish() }
        let pairs = try sameFramesBothWays(thread)
        let stack = try #require(pairs.first?.fp.stack)
        #expect(names(stack).count { $0.contains("recurseThenSpin") } == 60)
        // Once the spin loop's instructions have been seen, frame records do it all.
        #expect(pairs.contains { $0.fp.libunwindFrames == 0 }, "\(pairs.map(\.fp.libunwindFrames))")
        #expect(pairs.allSatisfy { $0.dwarf.libunwindFrames == $0.dwarf.stack.count })
    }

    @Test func stackThroughLibcGivesTheSameFramesAsLibunwind() throws {
        let thread = SpinningThread { sortThroughLibcThenSpin($0) }
        defer { thread.finish() }
        let pairs = try sameFramesBothWays(thread)
        let frames = names(try #require(pairs.first?.fp.stack))
        let spin = try #require(frames.firstIndex { $0.contains("recurseThenSpin") })
        let sorter = try #require(frames.firstIndex { $0.hasPrefix("ProbeTests.sortThroughLibcThenSpin") })
        // qsort's own frames (glibc has no frame records) sit between the callback and its caller.
        #expect(frames[spin..<sorter].contains { $0.contains("qsort") }, "\(frames)")
    }

    @Test func stackThroughTheConcurrencyRuntimeGivesTheSameFramesAsLibunwind() throws {
        let thread = SpinningThread(task: { await spinInATask($0) })
        defer { thread.finish() }
        let pairs = try sameFramesBothWays(thread)
        let frames = names(try #require(pairs.first?.fp.stack))
        #expect(frames.contains { $0.contains("spinInATask") }, "\(frames)")
    }
}
