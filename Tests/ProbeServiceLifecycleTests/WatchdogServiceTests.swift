import Foundation
import Logging
import ProbeRecords
import Probe
import ProbeServiceLifecycle
import ServiceLifecycle
import Synchronization
import Testing

/// Set to end the stall: it lasts until the test has seen the service stop (or 30 s).
final class StallRelease: Sendable {
    private let released = Atomic<Bool>(false)
    var isReleased: Bool { released.load(ordering: .acquiring) }
    func release() { released.store(true, ordering: .releasing) }
}

/// Spins until released; the limit only keeps a failed test from spinning for ever. It assumes the
/// graceful shutdown ends within it: under a loaded CI (an emulated build beside it, other tests'
/// bodies holding the 2-thread pool) the shutdown's awaits took over 30 s, the stall ended first
/// and was recorded as ended (2026-11-28), so 240 s.
@inline(never)
func stallOngoingAtShutdownForServiceTest(until release: StallRelease) {
    let end = DispatchTime.now().uptimeNanoseconds + 240_000_000_000
    var x: UInt64 = 1
    while !release.isReleased, DispatchTime.now().uptimeNanoseconds < end { x = x &* 6_364_136_223_846_793_005 &+ 1 }
    if x == 42 { print("") }
}

/// How many of the watchdog's pings the executor has run.
final class PingsRun: Sendable {
    private let value = Atomic<Int>(0)
    var count: Int { value.load(ordering: .acquiring) }
    func increment() { value.add(1, ordering: .releasing) }
}

final class ServiceStallCollector: Sendable {
    private let records = Mutex<[StallRecord]>([])
    var all: [StallRecord] { records.withLock { $0 } }
    func add(_ record: StallRecord) { records.withLock { $0.append(record) } }
}

/// A thread of its own that runs the closures handed to it, in order (as an event loop would):
/// the watchdog samples exactly the thread that stalls.
final class OneThreadExecutor: Sendable {
    private let jobs = Mutex<[@Sendable () -> Void]>([])
    private let available = DispatchSemaphore(value: 0)

    init() {
        let thread = Thread { [self] in
            while true {
                available.wait()
                guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return }
                job()
            }
        }
        thread.start()
    }

    func execute(_ job: @escaping @Sendable () -> Void) {
        jobs.withLock { $0.append(job) }
        available.signal()
    }

    /// Ends the thread once the jobs before it have run.
    func shutdown() { available.signal() }
}

@Suite(.serialized)
struct WatchdogServiceTests {
    func configuration(_ name: String, _ collector: ServiceStallCollector) -> WatchdogConfiguration {
        var configuration = WatchdogConfiguration(name: name, threshold: .milliseconds(100))
        configuration.sampleInterval = .milliseconds(20)
        configuration.metrics = false
        configuration.onStall = { collector.add($0) }
        return configuration
    }

    func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<200 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
    }

    /// In a real ServiceGroup: the watchdogs run while the group runs; a graceful shutdown during
    /// a stall stops them and reports that stall once, as ongoing.
    @Test func gracefulShutdownStopsTheWatchdogsAndKeepsTheOngoingStall() async throws {
        let collector = ServiceStallCollector()
        let executor = OneThreadExecutor()
        defer { executor.shutdown() }
        // The watchdog learns the executor's thread from its first ping: a stall submitted before
        // that ping ran would be timed but could not be sampled (under load the watchdog's first
        // ping can be queued behind the stall; seen in CI, 2026-11-26).
        let pingsRun = PingsRun()
        let watchdog = Watchdog(
            watching: .executor(
                name: "probe-service-test",
                submit: { ping in
                    executor.execute {
                        ping()
                        pingsRun.increment()
                    }
                }),
            configuration: configuration("executor", collector))
        let group = ServiceGroup(
            services: [WatchdogService(watchdogs: [watchdog])], logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        try await waitUntil { watchdog.isRunning && pingsRun.count > 0 }
        #expect(watchdog.isRunning)
        #expect(pingsRun.count > 0)

        let stallEnded = DispatchSemaphore(value: 0)
        let release = StallRelease()
        executor.execute {
            stallOngoingAtShutdownForServiceTest(until: release)
            stallEnded.signal()
        }
        try await Task.sleep(for: .milliseconds(400))
        await group.triggerGracefulShutdown()
        try await running.value
        release.release()
        #expect(!watchdog.isRunning)
        await withCheckedContinuation { done in
            Thread {
                stallEnded.wait()
                done.resume()
            }.start()
        }

        let stalls = collector.all
        try #require(stalls.count == 1)
        #expect(stalls[0].ongoing)
        #expect(stalls[0].durationNanoseconds >= 300e6)
        let symbols = stalls[0].topStack.compactMap(\.symbol)
        #expect(symbols.contains { $0.contains("stallOngoingAtShutdownForServiceTest") }, "top stack: \(symbols)")
    }

    /// A watchdog someone else already started is refused (the service owns its watchdogs), and
    /// left running; a watchdog that cannot start fails the run with its error, leaving none of
    /// the service's watchdogs running.
    @Test func runRefusesWatchdogsItCannotOwnOrStart() async throws {
        let collector = ServiceStallCollector()
        let owned = Watchdog(watching: .queue(DispatchQueue(label: "a")), configuration: configuration("a", collector))
        try owned.start()
        let refused = await #expect(throws: WatchdogService.RunError.self) {
            try await WatchdogService(watchdogs: [owned]).run()
        }
        #expect(refused?.kind == .watchdogAlreadyRunning)
        #expect(refused?.description.contains("\"a\" is already running") == true)
        #expect(owned.isRunning)
        owned.stop()

        var impossible = configuration("b", collector)
        impossible.threshold = .milliseconds(5)  // below the 20 ms sample interval
        let first = Watchdog(watching: .queue(DispatchQueue(label: "c")), configuration: configuration("c", collector))
        let second = Watchdog(watching: .queue(DispatchQueue(label: "b")), configuration: impossible)
        await #expect(throws: Watchdog.StartError.self) {
            try await WatchdogService(watchdogs: [first, second]).run()
        }
        #expect(!first.isRunning && !second.isRunning)
    }
}
