import Foundation
import ProbeRecords
import Testing

@testable import Probe

@inline(never)
func stallingExecutorWorkForProbeTest() {
    spinForProbeTest(milliseconds: 300)
}

@inline(never)
func stallingActorWorkForProbeTest() {
    spinForProbeTest(milliseconds: 300)
}

/// An actor that runs on its own thread (a custom `SerialExecutor`).
actor ActorOnItsOwnThread {
    let executor: ThreadExecutor
    init(executor: ThreadExecutor) { self.executor = executor }
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    func run(_ job: @Sendable () -> Void) { job() }
    func stall() { stallingActorWorkForProbeTest() }
}

@Suite(.serialized)
struct ExecutorTargetTests {
    func configuration(_ name: String, collector: StallCollector) -> WatchdogConfiguration {
        var configuration = WatchdogConfiguration(name: name, threshold: .milliseconds(100))
        configuration.sampleInterval = .milliseconds(20)
        configuration.metrics = false
        configuration.onStall = { collector.add($0) }
        return configuration
    }

    /// An executor that accepts closures (as a NIO event loop does) is watched by pings: idle, no
    /// stall; a 300 ms job gives one stall, sampled on the executor's thread.
    @Test func stallOnAnExecutorIsReportedOnItsThread() throws {
        let executor = ThreadExecutor(name: "probe-test-loop")
        defer { executor.shutdown() }
        let collector = StallCollector()
        let watchdog = Watchdog(
            watching: .executor(name: "probe-test-loop", submit: { job in executor.execute(job) }),
            configuration: configuration("loop", collector: collector))
        try watchdog.start()
        Thread.sleep(forTimeInterval: 0.3)  // idle: pings go through
        #expect(collector.all.isEmpty)
        let done = DispatchSemaphore(value: 0)
        executor.execute {
            stallingExecutorWorkForProbeTest()
            done.signal()
        }
        done.wait()
        Thread.sleep(forTimeInterval: 0.15)  // the end of the stall is seen
        watchdog.stop()

        let stalls = collector.all
        try #require(stalls.count == 1)
        #expect(stalls[0].watchdog == "loop")
        #expect(stalls[0].threadID == executor.threadID)
        #expect(stalls[0].durationNanoseconds >= 150e6)
        #expect(stalls[0].threads == nil)
        let names = stalls[0].topStack.compactMap(\.symbol)
        #expect(names.contains { $0.contains("stallingExecutorWorkForProbeTest") }, "top stack: \(names)")
    }

    /// An actor is watched through the same target: each ping is a task that runs on the actor.
    /// The task starts on the actor's own executor (`executorPreference`), so a busy cooperative
    /// pool cannot delay it.
    @Test func stallOfAnActorIsReportedWithTheActorsWork() async throws {
        let executor = ThreadExecutor(name: "probe-test-actor")
        defer { executor.shutdown() }
        let actor = ActorOnItsOwnThread(executor: executor)
        let collector = StallCollector()
        let watchdog = Watchdog(
            watching: .executor(
                name: "probe-test-actor",
                submit: { job in Task(executorPreference: executor) { await actor.run(job) } }),
            configuration: configuration("actor", collector: collector))
        try watchdog.start()
        try await Task.sleep(for: .milliseconds(300))
        #expect(collector.all.isEmpty)
        await actor.stall()
        try await Task.sleep(for: .milliseconds(150))
        watchdog.stop()

        let stalls = collector.all
        try #require(
            stalls.count == 1,
            "\(stalls.map { ($0.classification, $0.durationNanoseconds / 1_000_000, $0.start, $0.topStack.compactMap(\.symbol).prefix(3)) })"
        )
        #expect(stalls[0].threadID == executor.threadID)
        #expect(stalls[0].classification == .cpuBound)
        let names = stalls[0].callTree.map(allSymbols) ?? []
        #expect(names.contains { $0.contains("stallingActorWorkForProbeTest") }, "\(names)")
    }
}
