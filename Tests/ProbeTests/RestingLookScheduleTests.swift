import Testing

@testable import Probe

@Suite struct RestingLookScheduleTests {
    private let ms: UInt64 = 1_000_000

    @Test func byDefaultHalfTheThresholdWhileActiveAndTheThresholdOnceIdle() {
        let schedule = RestingLookSchedule(threshold: .milliseconds(100), tick: .milliseconds(25), configured: nil)
        #expect(schedule.active == 50 * ms)
        #expect(schedule.idle == 100 * ms)
        let now: UInt64 = 10_000 * ms
        #expect(schedule.interval(now: now, lastWorkSeen: nil) == 100 * ms)
        #expect(schedule.interval(now: now, lastWorkSeen: now - 1_999 * ms) == 50 * ms)
        #expect(schedule.interval(now: now, lastWorkSeen: now - 2_000 * ms) == 100 * ms)
        // Seen by another thread just after `now` was read: still active.
        #expect(schedule.interval(now: now, lastWorkSeen: now + ms) == 50 * ms)
    }

    @Test func longThresholdsAreCapped() {
        let schedule = RestingLookSchedule(threshold: .milliseconds(2_000), tick: .milliseconds(50), configured: nil)
        #expect(schedule.active == 250 * ms)
        #expect(schedule.idle == 500 * ms)
    }

    @Test func neverBelowTheWatchdogsOwnTick() {
        let schedule = RestingLookSchedule(threshold: .milliseconds(20), tick: .milliseconds(5), configured: nil)
        #expect(schedule.active == 10 * ms)
        #expect(schedule.idle == 20 * ms)
        let configured = RestingLookSchedule(
            threshold: .milliseconds(20), tick: .milliseconds(5), configured: .milliseconds(1))
        #expect(configured.active == 5 * ms && configured.idle == 5 * ms)
    }

    @Test func aConfiguredIntervalHoldsActiveOrIdle() {
        let schedule = RestingLookSchedule(
            threshold: .milliseconds(100), tick: .milliseconds(25), configured: .milliseconds(100))
        #expect(schedule.interval(now: 5_000 * ms, lastWorkSeen: 4_999 * ms) == 100 * ms)
        #expect(schedule.interval(now: 5_000 * ms, lastWorkSeen: nil) == 100 * ms)
    }
}
