import Foundation
import Probe
import Synchronization

/// A thread that waits for jobs like an event loop: idle (heartbeat cleared) while waiting,
/// busy while running a job.
final class WatchedThread: Sendable {
    private final class Shared: Sendable {
        let jobs = Mutex<[@Sendable () -> Void]>([])
        let wake = DispatchSemaphore(value: 0)
        let stopped = Atomic<Bool>(false)
        let exited = DispatchSemaphore(value: 0)
        let heartbeat = Mutex<Heartbeat?>(nil)
    }

    let heartbeat: Heartbeat
    private let shared = Shared()

    init() {
        let ready = DispatchSemaphore(value: 0)
        let shared = self.shared
        let thread = Thread {
            let heartbeat = Heartbeat.currentThread()
            shared.heartbeat.withLock { $0 = heartbeat }
            ready.signal()
            while !shared.stopped.load(ordering: .relaxed) {
                heartbeat.idle()
                shared.wake.wait()
                heartbeat.busy()
                let pending = shared.jobs.withLock { list -> [@Sendable () -> Void] in
                    defer { list.removeAll() }
                    return list
                }
                for job in pending { job() }
            }
            heartbeat.idle()
            shared.exited.signal()
        }
        thread.start()
        ready.wait()
        heartbeat = shared.heartbeat.withLock { $0! }
    }

    /// Runs `job` on the thread and waits for it to finish.
    func run(_ job: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        shared.jobs.withLock {
            $0.append {
                job()
                done.signal()
            }
        }
        shared.wake.signal()
        done.wait()
    }

    func finish() {
        shared.stopped.store(true, ordering: .relaxed)
        shared.wake.signal()
        shared.exited.wait()
    }
}

@inline(never)
func spinForProbeTest(milliseconds: Int) {
    let end = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
    var x: UInt64 = 1
    while DispatchTime.now().uptimeNanoseconds < end { x = x &* 6_364_136_223_846_793_005 &+ 1 }
    if x == 42 { print("") }
}

@inline(never)
func allocateForProbeTest(milliseconds: Int) {
    let end = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
    var total = 0
    while DispatchTime.now().uptimeNanoseconds < end {
        for size in [16, 256, 4096, 65_536] {
            let pointer = malloc(size)!
            memset(pointer, 1, size)
            total += Int(pointer.load(as: UInt8.self))
            free(pointer)
        }
    }
    if total == -1 { print("") }
}

/// Collects the stalls a watchdog reports through its callback.
final class StallCollector: Sendable {
    private let records = Mutex<[PerfReportStall]>([])
    var all: [PerfReportStall] { records.withLock { $0 } }
    func add(_ record: PerfReportStall) { records.withLock { $0.append(record) } }
}
