import Testing

@testable import Probe

@Suite struct RestingLookScheduleTests {
    private let ms: UInt64 = 1_000_000

    @Test func byDefaultHalfTheThresholdWhileActiveAndTheThresholdOnceIdle() {
        let schedule = RestingLookSchedule(threshold: 100 * ms, tick: 25 * ms, configured: nil)
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
        let schedule = RestingLookSchedule(threshold: 2_000 * ms, tick: 50 * ms, configured: nil)
        #expect(schedule.active == 250 * ms)
        #expect(schedule.idle == 500 * ms)
    }

    @Test func neverBelowTheWatchdogsOwnTick() {
        let schedule = RestingLookSchedule(threshold: 20 * ms, tick: 5 * ms, configured: nil)
        #expect(schedule.active == 10 * ms)
        #expect(schedule.idle == 20 * ms)
        let configured = RestingLookSchedule(threshold: 20 * ms, tick: 5 * ms, configured: 1 * ms)
        #expect(configured.active == 5 * ms && configured.idle == 5 * ms)
    }

    @Test func aConfiguredIntervalHoldsActiveOrIdle() {
        let schedule = RestingLookSchedule(threshold: 100 * ms, tick: 25 * ms, configured: 100 * ms)
        #expect(schedule.interval(now: 5_000 * ms, lastWorkSeen: 4_999 * ms) == 100 * ms)
        #expect(schedule.interval(now: 5_000 * ms, lastWorkSeen: nil) == 100 * ms)
    }
}
