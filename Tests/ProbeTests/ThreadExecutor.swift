import Foundation
@_spi(Benchmarks) import Probe
import Synchronization

/// An executor that owns one thread, like a SwiftNIO event loop: `execute` queues a closure for
/// it. It is also a `SerialExecutor` (so an actor can run on it) and a `TaskExecutor` (so a task
/// can start on it without going through the cooperative pool).
final class ThreadExecutor: SerialExecutor, TaskExecutor, Sendable {
    private final class Shared: Sendable {
        let jobs = Mutex<[@Sendable () -> Void]>([])
        let wake = DispatchSemaphore(value: 0)
        let stopped = Atomic<Bool>(false)
        let exited = DispatchSemaphore(value: 0)
        let threadID = Atomic<Int32>(0)
    }

    private let shared = Shared()

    /// The kernel thread id of the executor's thread.
    var threadID: Int32 { shared.threadID.load(ordering: .acquiring) }

    init(name: String) {
        let shared = self.shared
        let ready = DispatchSemaphore(value: 0)
        let thread = Thread {
            shared.threadID.store(StackSampler.currentThreadID, ordering: .releasing)
            ready.signal()
            while !shared.stopped.load(ordering: .relaxed) {
                shared.wake.wait()
                let pending = shared.jobs.withLock { list -> [@Sendable () -> Void] in
                    defer { list.removeAll() }
                    return list
                }
                for job in pending { job() }
            }
            shared.exited.signal()
        }
        thread.name = name
        thread.start()
        ready.wait()
    }

    /// Runs `job` on the executor's thread, after the jobs queued before it.
    func execute(_ job: @escaping @Sendable () -> Void) {
        shared.jobs.withLock { $0.append(job) }
        shared.wake.signal()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        execute {
            job.runSynchronously(isolatedTo: self.asUnownedSerialExecutor(), taskExecutor: self.asUnownedTaskExecutor())
        }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// Stops the thread once the jobs queued so far have run.
    func shutdown() {
        execute { [shared] in shared.stopped.store(true, ordering: .relaxed) }
        shared.exited.wait()
    }
}
