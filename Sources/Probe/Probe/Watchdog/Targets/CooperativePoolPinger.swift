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
    /// How often the watchdog looks for pool threads that cannot be sampled yet; doubled (up to
    /// ``longestPreparationInterval``) each time a preparation leaves some still unprepared — a
    /// busy pool can keep one thread out of reach indefinitely, and trying every second then costs
    /// the service for nothing.
    static let preparationInterval: Duration = .seconds(1)
    static let longestPreparationInterval: Duration = .seconds(32)
    /// How long a preparing task holds its thread waiting for the others to start.
    static let preparationPatience: Duration = .milliseconds(10)

    private let arrivals: PingArrivals
    private let signal: Int32
    private let lastPreparation = Atomic<UInt64>(0)
    /// The current interval between preparations, in ns as the stamps it is compared with.
    private let currentPreparationInterval = Atomic<UInt64>(CooperativePoolPinger.preparationInterval.nanoseconds)

    init(signal: Int32) {
        self.signal = signal
        self.arrivals = PingArrivals(signal: signal)
    }

    func post(generation: UInt64) {
        let arrivals = self.arrivals
        Task.detached(priority: Self.priority) {
            if arrivals.arrive(generation: generation) { CooperativePoolThreads.learnCurrentThread() }
        }
    }

    var arrivedGeneration: UInt64 { arrivals.generation }
    var arrivedAt: UInt64 { arrivals.time }
    /// No single thread: a late ping means no pool thread could start it.
    var threadID: Int32? { nil }

    func poolThreads() -> [PoolThread]? {
        CooperativePoolThreads.list()
    }

    /// Makes sure every pool thread can be sampled: a thread that never ran a ping still blocks
    /// the sampling signal (libdispatch workers block them all), and once the pool is starved no
    /// ping can reach it. So, on the watchdog's first call and then at most once per
    /// ``preparationInterval`` when a pool thread blocks the signal, runs one task per pool
    /// thread at once; each holds its thread (asleep, not spinning: a busy service must not pay
    /// CPU for it) until all have started or ``preparationPatience`` has passed, so that they
    /// land on distinct threads.
    /// Called on the watchdog's thread while no ping is outstanding (the pool is not starved).
    func prepareThreads(now: UInt64) {
        let last = lastPreparation.load(ordering: .relaxed)
        let interval = currentPreparationInterval.load(ordering: .relaxed)
        guard last == 0 || now.saturatingSubtract(last) >= interval else { return }
        lastPreparation.store(now, ordering: .relaxed)
        let threads = poolThreads() ?? []
        // The first time, the pool may not have all its threads yet: fill it.
        let unprepared = threads.contains { ThreadInfo.blocks(signal: self.signal, tid: $0.id) }
        if last != 0 {
            currentPreparationInterval.store(
                unprepared
                    ? min(interval * 2, Self.longestPreparationInterval.nanoseconds)
                    : Self.preparationInterval.nanoseconds,
                ordering: .relaxed)
            guard unprepared else { return }
        }
        let count = max(threads.count, ProcessInfo.processInfo.activeProcessorCount)
        let gathering = Gathering(count: count)
        let signal = self.signal
        for _ in 0..<count {
            Task.detached(priority: Self.priority) {
                if cprobe_prepare_thread(signal) == 1 { CooperativePoolThreads.learnCurrentThread() }
                gathering.arriveAndWait(patience: Self.preparationPatience)
            }
        }
    }
}

/// Holds each preparing task on its thread until all have started (or the patience ran out), so
/// that no two land on one thread. Deliberately a synchronous wait inside a task — bounded, and
/// asleep rather than spinning.
private final class Gathering: Sendable {
    private let count: Int
    private let started = Atomic<Int>(0)
    private let allStarted = DispatchSemaphore(value: 0)

    init(count: Int) { self.count = count }

    func arriveAndWait(patience: Duration) {
        if started.add(1, ordering: .acquiringAndReleasing).newValue == count {
            for _ in 1..<max(1, count) { allStarted.signal() }
            return
        }
        _ = allStarted.wait(timeout: .now() + .nanoseconds(Int(patience.nanoseconds)))
    }
}
