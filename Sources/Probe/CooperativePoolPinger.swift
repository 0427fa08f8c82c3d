import CProbe
import Foundation
import Synchronization

/// Pings for Swift concurrency's global concurrent executor: each ping is a detached task of
/// default priority. A ping that cannot start within the threshold means every pool thread is
/// taken (typically blocked in a synchronous wait inside a task): the pool is starved, and every
/// pool thread is sampled.
final class CooperativePoolPinger: Pinger {
    /// The priority of the pings, hence the pool watched: on Linux each priority has its own
    /// threads, and tasks created without one from outside a task run at this one.
    static let priority = TaskPriority.medium
    /// How often the watchdog looks for pool threads that cannot be sampled yet.
    static let preparationInterval: UInt64 = 1_000_000_000
    /// How long a preparing task holds its thread waiting for the others to start.
    static let preparationPatience: UInt64 = 10_000_000

    private let arrivals: PingArrivals
    private let signal: Int32
    private let names = PoolThreadNames()
    private let lastPreparation = Atomic<UInt64>(0)

    init(signal: Int32) {
        self.signal = signal
        self.arrivals = PingArrivals(signal: signal)
    }

    func post(generation: UInt64) {
        let arrivals = self.arrivals
        let names = self.names
        Task.detached(priority: Self.priority) {
            if arrivals.arrive(generation: generation) { names.learnCurrentThread() }
        }
    }

    var arrivedGeneration: UInt64 { arrivals.generation }
    var arrivedAt: UInt64 { arrivals.time }
    /// No single thread: a late ping means no pool thread could start it.
    var threadID: Int32? { nil }

    func poolThreads() -> [PoolThread]? {
        CooperativePoolThreads.list(named: names.all)
    }

    /// Makes sure every pool thread can be sampled: a thread that never ran a ping still blocks
    /// the sampling signal (libdispatch workers block them all), and once the pool is starved no
    /// ping can reach it. So, on the watchdog's first call and then at most once per
    /// ``preparationInterval`` when a pool thread blocks the signal, runs one task per pool
    /// thread at once; each holds its thread (yielding the CPU) until all have started or
    /// ``preparationPatience`` has passed, so that they land on distinct threads.
    /// Called on the watchdog's thread while no ping is outstanding (the pool is not starved).
    func prepareThreads(now: UInt64) {
        let last = lastPreparation.load(ordering: .relaxed)
        guard last == 0 || now.saturatingSubtract(last) >= Self.preparationInterval else { return }
        lastPreparation.store(now, ordering: .relaxed)
        let threads = poolThreads() ?? []
        // The first time, the pool may not have all its threads yet: fill it.
        guard last == 0 || threads.contains(where: { ThreadInfo.blocks(signal: self.signal, tid: $0.id) }) else {
            return
        }
        let count = max(threads.count, ProcessInfo.processInfo.activeProcessorCount)
        let started = StartedCount()
        let signal = self.signal
        let names = self.names
        for _ in 0..<count {
            Task.detached(priority: Self.priority) {
                if cprobe_prepare_thread(signal) == 1 { names.learnCurrentThread() }
                started.count.add(1, ordering: .relaxed)
                let deadline = cprobe_monotonic_ns() + Self.preparationPatience
                while started.count.load(ordering: .relaxed) < count, cprobe_monotonic_ns() < deadline {
                    sched_yield()
                }
            }
        }
    }
}

/// The names of the pool's threads: the one known for this platform, and those the pings ran on.
private final class PoolThreadNames: Sendable {
    private let names = Mutex<Set<String>>([CooperativePoolThreads.defaultPriorityName])

    var all: Set<String> { names.withLock { $0 } }

    /// Called from a ping or preparing task, which runs on a pool thread by definition.
    func learnCurrentThread() {
        guard let name = CooperativePoolThreads.currentThreadName() else { return }
        _ = names.withLock { $0.insert(name) }
    }
}

/// How many preparing tasks have started (an `Atomic` cannot be captured by escaping closures).
private final class StartedCount: Sendable {
    let count = Atomic<Int>(0)
}
