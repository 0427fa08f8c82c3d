import Foundation
import Testing

@testable import Probe

/// Configurations and targets `start()` refuses with a clear error, never a crash.
@Suite(.serialized)
struct WatchdogInputTests {
    func quiet(_ name: String, threshold: Duration = .milliseconds(100)) -> WatchdogConfiguration {
        var configuration = WatchdogConfiguration(name: name, threshold: threshold)
        configuration.sampleInterval = .milliseconds(20)
        configuration.metrics = false
        return configuration
    }

    func startError(_ watchdog: Watchdog) -> Watchdog.StartError? {
        do {
            try watchdog.start()
            return nil
        } catch {
            return error as? Watchdog.StartError
        }
    }

    @Test func thresholdBelowTheSampleIntervalIsRefused() throws {
        var configuration = quiet("short")
        configuration.threshold = .milliseconds(10)
        configuration.signal = WatchdogConfiguration.parseSignal("SIGRTMIN+11")!  // no other test uses it
        let watchdog = Watchdog(
            watching: .executor(name: "probe-test-short", submit: { $0() }), configuration: configuration)
        let error = try #require(startError(watchdog))
        #expect(error.kind == .invalidConfiguration)
        #expect(error.message.contains("below the sample interval"), "\(error)")
        #expect(!watchdog.isRunning)
        #expect(!Watchdog.isHandlerInstalled(signal: configuration.signal))
    }

    @Test func nonPositiveThresholdsAndIntervalsAreRefused() throws {
        var zero = quiet("zero")
        zero.threshold = .zero
        #expect(
            startError(Watchdog(watching: .executor(name: "probe-test-zero", submit: { $0() }), configuration: zero))?
                .kind == .invalidConfiguration)
        var negative = quiet("negative")
        negative.sampleInterval = .milliseconds(-5)
        #expect(
            startError(
                Watchdog(watching: .executor(name: "probe-test-negative", submit: { $0() }), configuration: negative))?
                .kind == .invalidConfiguration)
    }

    /// A second watchdog on the same executor (by name) does not start and names the first; once
    /// the first stops, the second can start. Starting the same watchdog twice stays a no-op.
    @Test func watchingTheSameExecutorTwiceIsRefused() throws {
        let executor = ThreadExecutor(name: "probe-test-twice")
        defer { executor.shutdown() }
        let target = WatchTarget.executor(name: "probe-test-twice", submit: { job in executor.execute(job) })
        let first = Watchdog(watching: target, configuration: quiet("first"))
        let second = Watchdog(watching: target, configuration: quiet("second"))
        try first.start()
        try first.start()
        let error = try #require(startError(second))
        #expect(error.kind == .alreadyWatched)
        #expect(
            error.message.contains("executor \"probe-test-twice\" is already watched by watchdog \"first\""), "\(error)"
        )
        #expect(!second.isRunning)
        first.stop()
        try second.start()
        second.stop()
    }

    @Test func watchingTheCooperativePoolOrTheSameQueueTwiceIsRefused() throws {
        let pool = Watchdog(watching: .cooperativePool, configuration: quiet("pool-1"))
        try pool.start()
        defer { pool.stop() }
        #expect(
            startError(Watchdog(watching: .cooperativePool, configuration: quiet("pool-2")))?.kind == .alreadyWatched)

        let queue = DispatchQueue(label: "probe-test-twice")
        let first = Watchdog(watching: .queue(queue), configuration: quiet("queue-1"))
        try first.start()
        defer { first.stop() }
        #expect(startError(Watchdog(watching: .queue(queue), configuration: quiet("queue-2")))?.kind == .alreadyWatched)
        // Another queue with the same label is another queue.
        let other = Watchdog(
            watching: .queue(DispatchQueue(label: "probe-test-twice")), configuration: quiet("queue-3"))
        try other.start()
        other.stop()
    }
}
