import Testing

@testable import Probe

/// The loop's intervals, from its configuration: a quarter threshold between looks and pings, half
/// of it as pause tolerance, each within its named bounds.
@Suite struct WatchdogIntervalsTests {
    private let ms: UInt64 = 1_000_000

    private func intervals(
        threshold: Duration, _ adjust: (inout WatchdogConfiguration) -> Void = { _ in }
    ) -> WatchdogIntervals {
        var configuration = WatchdogConfiguration(name: "intervals", threshold: threshold)
        adjust(&configuration)
        return WatchdogIntervals(configuration)
    }

    @Test func aQuarterThresholdBetweenLooksAndPingsHalfOfItAsPauseTolerance() {
        let defaults = intervals(threshold: .milliseconds(400))
        #expect(defaults.threshold == 400 * ms)
        #expect(defaults.sampleInterval == 1 * ms)
        #expect(defaults.tick == 50 * ms)
        #expect(defaults.pingInterval == 100 * ms)
        #expect(defaults.pauseTolerance == 200 * ms)
        #expect(defaults.samplingAge == 200 * ms)
        #expect(
            defaults.resting
                == RestingLookSchedule(threshold: .milliseconds(400), tick: .milliseconds(50), configured: nil))
        #expect(defaults.reportOngoingAfter == nil)
    }

    @Test func shortThresholdsMeetTheFloors() {
        let short = intervals(threshold: .milliseconds(20))
        #expect(short.tick == 5 * ms && short.pingInterval == 5 * ms)
        #expect(short.pauseTolerance == WatchdogIntervals.shortestPauseTolerance.nanoseconds)
        let tiny = intervals(threshold: .microseconds(400)) { $0.sampleInterval = .microseconds(10) }
        #expect(tiny.threshold == WatchdogIntervals.shortestThreshold.nanoseconds)
        #expect(tiny.sampleInterval == WatchdogIntervals.shortestSampleInterval.nanoseconds)
        #expect(tiny.tick == WatchdogIntervals.shortestTick.nanoseconds)
        #expect(tiny.pingInterval == WatchdogIntervals.shortestPingInterval.nanoseconds)
    }

    @Test func longThresholdsLookAtMostEveryLongestTickAndPingTheFreePoolSeldom() {
        let long = intervals(threshold: .seconds(2)) { $0.reportOngoingAfter = .seconds(30) }
        #expect(long.tick == WatchdogIntervals.longestTick.nanoseconds)
        #expect(long.pingInterval == 500 * ms)
        #expect(long.poolPingIntervalWithFreeThreads == WatchdogIntervals.poolPingIntervalWithFreeThreads.nanoseconds)
        #expect(long.reportOngoingAfter == 30_000 * ms)
        // Never more often than the busy pool's pings.
        #expect(intervals(threshold: .seconds(60)).poolPingIntervalWithFreeThreads == 15_000 * ms)
    }
}
