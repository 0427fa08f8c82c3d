import Foundation
import ProbeRecords
import Testing

@testable import Probe

/// What the watchdog's loop decides — when a busy period is a stall, how long it lasted, when it
/// is sampled, what a paused process or a suspended machine excuses, what is reported while a stall
/// goes on and at stop — tested in virtual time (``VirtualTimeWatchdog``): exact, and without a
/// sleep. What needs a real thread (signals, unwinding, pings through a real queue or pool) is in
/// `WatchdogTests` and the other target suites.
struct StallDetectionTests {
    /// A 100 ms threshold, samples every 20 ms, stalls collected in order; a heartbeat, or `pinged` a queue.
    func watchdog(
        threshold: Duration = .milliseconds(100), pinged: Bool = false,
        _ adjust: (inout WatchdogConfiguration) -> Void = { _ in }
    ) -> (VirtualTimeWatchdog, StallCollector) {
        let collector = StallCollector()
        var configuration = WatchdogConfiguration(name: "virtual", threshold: threshold)
        configuration.sampleInterval = .milliseconds(20)
        configuration.metrics = false
        configuration.onStall = { collector.add($0) }
        adjust(&configuration)
        return (VirtualTimeWatchdog(configuration: configuration, pinged: pinged), collector)
    }

    @Test func aBusyPeriodOfThreeThresholdsIsOneStallWithItsExactDuration() throws {
        let (virtual, collector) = watchdog()
        virtual.advanceTime(by: .seconds(1))
        virtual.work(for: .milliseconds(300))
        #expect(collector.all.isEmpty, "reported at its end, not before")
        virtual.advanceTime(by: .milliseconds(100))
        let stalls = collector.all
        try #require(stalls.count == 1)
        #expect(stalls[0].durationNanoseconds == 300e6)
        #expect(!stalls[0].ongoing)
        #expect(stalls[0].thresholdNanoseconds == 100e6)
        #expect(stalls[0].classification == .cpuBound)
        #expect(stalls[0].start == virtual.clock.date().addingTimeInterval(-0.4))
        // Sampled from the first look that found it (the resting clock's, up to one threshold after
        // it began) to its end: the second sample half an interval after the first, then every 20 ms.
        #expect(stalls[0].sampleCount >= 10)
        #expect(stalls[0].sampledNanoseconds == 10e6 + Double(stalls[0].sampleCount - 2) * 20e6)
        #expect(stalls[0].topStack.contains { $0.symbol?.contains("stackOfAVirtualStall") == true })
        #expect(virtual.watchdog.statistics.stalls == 1)
        #expect(virtual.watchdog.recentStalls == stalls)
    }

    /// A loop's stall that no look saw (the watchdog's thread was recording the stall before: a
    /// 183 ms sleep missed in a 30-minute soak, 2026-12-07) is recorded from the heartbeat's own
    /// stamps, once, unsampled; one the looks saw is not recorded again from them.
    @Test func aLoopStallNoLookSawIsRecordedFromTheHeartbeatOnce() throws {
        let (virtual, collector) = watchdog()
        virtual.advanceTime(by: .seconds(1))
        // Busy 183 ms, all of it between two looks (set after the fact: no look ran meanwhile).
        virtual.heartbeat.busy(at: virtual.now - 250_000_000)
        virtual.heartbeat.idle(at: virtual.now - 67_000_000)
        virtual.advanceTime(by: .milliseconds(500))
        var stalls = collector.all
        try #require(stalls.count == 1, "\(stalls.map(\.durationNanoseconds))")
        #expect(stalls[0].durationNanoseconds == 183e6)
        #expect(stalls[0].unsampled != nil)
        // Short ones between looks are no stalls; one the looks timed is recorded once, sampled.
        virtual.heartbeat.busy(at: virtual.now - 150_000_000)
        virtual.heartbeat.idle(at: virtual.now - 80_000_000)
        virtual.work(for: .milliseconds(183))
        virtual.advanceTime(by: .seconds(1))
        stalls = collector.all
        try #require(stalls.count == 2, "\(stalls.map(\.durationNanoseconds))")
        #expect(stalls[1].durationNanoseconds == 183e6 && stalls[1].unsampled == nil)
    }

    @Test func busyPeriodsShorterThanTheThresholdAreNeverStallsHoweverMany() {
        let (virtual, collector) = watchdog()
        for _ in 0..<1000 {
            virtual.work(for: .milliseconds(90))
            virtual.advanceTime(by: .milliseconds(5))
        }
        virtual.advanceTime(by: .seconds(10))  // a long idle wait is no stall either
        virtual.stop()
        #expect(collector.all.isEmpty)
        #expect(virtual.reader.samplesTaken > 0, "sampled from half the threshold, then let go")
    }

    /// A busy period is a stall when a look sees it at the threshold. An idle watchdog's resting
    /// clock looks every threshold (100 ms here, from the start): a busy period from 0 to 99 ms is
    /// over before the look at 100; one from 100 to 201 ms is seen at 200, 100 ms old.
    @Test func aStallIsConfirmedByALookAtOrPastTheThreshold() throws {
        let (virtual, collector) = watchdog()
        virtual.work(for: .milliseconds(99))
        virtual.advanceTime(by: .milliseconds(1))
        #expect(collector.all.isEmpty)
        virtual.work(for: .milliseconds(101))
        virtual.advanceTime(by: .milliseconds(200))
        try #require(collector.all.count == 1)
        #expect(collector.all[0].durationNanoseconds == 101e6)
    }

    @Test func aStallGoingOnAtStopIsReportedOnceAsOngoing() throws {
        let (virtual, collector) = watchdog()
        virtual.busy()
        virtual.advanceTime(by: .milliseconds(250))
        virtual.stop()
        let stalls = collector.all
        try #require(stalls.count == 1)
        #expect(stalls[0].ongoing)
        #expect(stalls[0].durationNanoseconds == 250e6)
        virtual.stop()
        #expect(collector.all.count == 1)
    }

    /// With `reportOngoingAfter`, a long stall is reported early as ongoing and again at its end
    /// with its whole duration and the same start; counted once, kept once.
    @Test func aStallReportedEarlyIsReportedAgainAtItsEndAndCountedOnce() throws {
        let (virtual, collector) = watchdog { $0.reportOngoingAfter = .milliseconds(200) }
        virtual.busy()
        virtual.advanceTime(by: .milliseconds(199))
        #expect(collector.all.isEmpty)
        virtual.advanceTime(by: .milliseconds(20))
        try #require(collector.all.count == 1)
        #expect(collector.all[0].ongoing)
        // At the first look past 200 ms.
        #expect(collector.all[0].durationNanoseconds >= 200e6 && collector.all[0].durationNanoseconds < 220e6)
        virtual.advanceTime(by: .milliseconds(381))
        virtual.idle()
        virtual.advanceTime(by: .milliseconds(100))
        let stalls = collector.all
        try #require(stalls.count == 2)
        #expect(!stalls[1].ongoing)
        #expect(stalls[1].durationNanoseconds == 600e6)
        #expect(stalls[0].start == stalls[1].start)
        #expect(virtual.watchdog.statistics.stalls == 1)
        #expect(virtual.watchdog.recentStalls.count == 1 && virtual.watchdog.recentStalls.first?.ongoing == false)
    }

    /// A busy period that spans a pause of the whole process (SIGSTOP) is not the target's fault:
    /// the paused time is excused, and the busy period is counted as a pause ignored.
    @Test func aPausedProcessIsNoStall() {
        let (virtual, collector) = watchdog()
        virtual.busy()
        virtual.advanceTime(by: .milliseconds(40))
        virtual.pauseProcess(for: .seconds(1))
        virtual.advanceTime(by: .milliseconds(40))
        virtual.idle()
        virtual.advanceTime(by: .milliseconds(100))
        virtual.stop()
        #expect(collector.all.isEmpty)
        #expect(virtual.watchdog.statistics.pausesIgnored == 1)
    }

    /// A machine suspended during a busy period (CLOCK_BOOTTIME runs ahead of CLOCK_MONOTONIC): the
    /// suspended time is excused too.
    @Test func aSuspendedMachineIsNoStall() {
        let (virtual, collector) = watchdog()
        virtual.busy()
        virtual.advanceTime(by: .milliseconds(60))
        virtual.suspendMachine(for: .seconds(30))
        virtual.advanceTime(by: .milliseconds(60))  // the resting clock's look at 100 ms sees it
        virtual.idle()
        virtual.advanceTime(by: .milliseconds(100))
        #expect(collector.all.isEmpty)
        #expect(virtual.watchdog.statistics.pausesIgnored == 1)
    }

    /// A real stall with a pause inside keeps the time it really stalled, the pause taken out.
    @Test func aStallWithAPauseInsideLastsWithoutThePause() throws {
        let (virtual, collector) = watchdog()
        virtual.busy()
        virtual.advanceTime(by: .milliseconds(150))
        virtual.pauseProcess(for: .seconds(2))
        virtual.advanceTime(by: .milliseconds(150))
        virtual.idle()
        virtual.advanceTime(by: .milliseconds(100))
        let stalls = collector.all
        try #require(stalls.count == 1)
        // The pause ran from the last look before it (at 150 ms) to the late look after it.
        #expect(abs(stalls[0].durationNanoseconds - 300e6) <= 20e6, "\(stalls[0].durationNanoseconds)")
        #expect(virtual.watchdog.statistics.pausesIgnored == 0)
    }

    /// A late look shorter than the pause tolerance (half the threshold, at least 50 ms) is no
    /// pause: a stall seen late is still a stall.
    @Test func aLookLateByLessThanThePauseToleranceExcusesNothing() throws {
        let (virtual, collector) = watchdog()
        virtual.busy()
        virtual.advanceTime(by: .milliseconds(80))
        virtual.pauseProcess(for: .milliseconds(45))
        virtual.advanceTime(by: .milliseconds(55))
        virtual.idle()
        virtual.advanceTime(by: .milliseconds(100))
        try #require(collector.all.count == 1)
        #expect(collector.all[0].durationNanoseconds == 180e6)
    }

    /// A look late because every CPU was busy (its thread runnable, waiting for one) is no pause for
    /// a target asleep in a wait: the stall was real to whoever waited on it, whether the late look
    /// is the resting clock's (the first) or the loop's own (the second). Before, a wait over the
    /// tolerance was excused as a pause: one of these went unreported, as did pool starvations under
    /// two busy neighbours (2026-11-29).
    @Test func aLookLateBecauseEveryCPUWasBusyIsNoPauseForATargetAsleep() throws {
        let (virtual, collector) = watchdog()
        virtual.reader.state = "S"
        virtual.work(for: .milliseconds(60), waitingForCPU: .milliseconds(100), then: .milliseconds(10))
        virtual.advanceTime(by: .milliseconds(200))
        virtual.work(for: .milliseconds(80), waitingForCPU: .milliseconds(80), then: .milliseconds(10))
        virtual.advanceTime(by: .milliseconds(100))
        try #require(collector.all.count == 2, "\(collector.all.map(\.durationNanoseconds))")
        #expect(collector.all.map(\.durationNanoseconds) == [170e6, 170e6])
        #expect(virtual.watchdog.statistics.pausesIgnored == 0)
    }

    /// A target that was runnable, waiting for a CPU as the late look was, is excused that wait, as
    /// before: a process starved of CPU is not its target's stall (a watched queue's ping waiting for
    /// its thread to get a CPU would otherwise be a stall in Probe's own ping).
    @Test func aTargetWaitingForACPUToo() {
        let (virtual, collector) = watchdog()
        virtual.reader.state = "R"
        virtual.work(for: .milliseconds(60), waitingForCPU: .milliseconds(100), then: .milliseconds(10))
        virtual.advanceTime(by: .milliseconds(100))
        #expect(collector.all.isEmpty, "\(collector.all.map(\.durationNanoseconds))")
        #expect(virtual.watchdog.statistics.pausesIgnored == 1)
    }

    /// A target that ran while its watchdog's thread waited for a CPU (a spinning event loop on one
    /// core of two, the other taken) is excused nothing: what a late look may excuse is bounded by the
    /// time the target's own thread spent off its CPU since the previous look. Before, a 173 ms block
    /// could lose 80 ms to its watchdog's wait and go unreported (one in a 30-minute soak, 2026-12-07).
    @Test(arguments: [false, true])
    func aTargetThatRanWhileItsWatchdogWaitedForACPUIsExcusedNothing(pinged: Bool) throws {
        let (virtual, collector) = watchdog(pinged: pinged)
        virtual.reader.state = "R"
        virtual.advanceTime(by: .milliseconds(500))
        virtual.work(
            for: .milliseconds(60), waitingForCPU: .milliseconds(90), then: .milliseconds(23), targetRuns: true)
        virtual.advanceTime(by: .milliseconds(200))
        try #require(collector.all.count == 1, "\(collector.all.map(\.durationNanoseconds))")
        // Pinged, the busy period is timed from the ping a look sent after the target became busy.
        #expect(collector.all[0].durationNanoseconds >= 140e6, "\(collector.all[0].durationNanoseconds)")
        #expect(virtual.watchdog.statistics.pausesIgnored == 0)
    }

    /// A stall of a runnable target whose watchdog waited for a CPU at several looks is sampled from
    /// half the threshold of its wall time, not of what is left once the waits are excused: a cpu-bound
    /// stall under two spinners was sampled only in its last 15 ms of 603 (`make test`, 2026-11-29).
    @Test func aStallSeenByLateLooksIsSampledFromHalfTheThreshold() throws {
        let (virtual, collector) = watchdog()
        virtual.reader.state = "R"
        virtual.busy()
        for _ in 0..<5 {
            virtual.advanceTime(by: .milliseconds(10))
            virtual.waitForCPU(for: .milliseconds(60))
        }
        virtual.advanceTime(by: .milliseconds(200))
        virtual.idle()
        virtual.advanceTime(by: .milliseconds(100))
        let stalls = collector.all
        try #require(stalls.count == 1)
        let sampled = try #require(stalls[0].sampledNanoseconds)
        #expect(sampled >= 400e6, "\(sampled) ns sampled of a \(stalls[0].durationNanoseconds) ns stall")
    }

    /// A pause followed by a wait for a CPU is still a pause: only the wait is taken off the late look.
    @Test func aPauseFollowedByAWaitForACPUIsStillExcused() {
        let (virtual, collector) = watchdog()
        virtual.reader.state = "S"
        virtual.busy()
        virtual.advanceTime(by: .milliseconds(40))
        virtual.pauseProcess(for: .seconds(1))
        virtual.waitForCPU(for: .milliseconds(20))
        virtual.advanceTime(by: .milliseconds(20))
        virtual.idle()
        virtual.advanceTime(by: .milliseconds(100))
        virtual.stop()
        #expect(collector.all.isEmpty)
        #expect(virtual.watchdog.statistics.pausesIgnored == 1)
    }

    /// While nothing is going on the loop rests and the resting clock looks, seldom (see
    /// `RestingLookSchedule`); a stall starting then is still caught, and timed from its start.
    @Test func aStallAfterALongRestIsCaughtByTheRestingClock() throws {
        let (virtual, collector) = watchdog()
        virtual.advanceTime(by: .seconds(60))
        let restingLooks = virtual.restingLooks
        #expect(restingLooks > 0)
        #expect(virtual.looks < restingLooks, "at rest the loop's own thread does not look")
        virtual.work(for: .milliseconds(400))
        virtual.advanceTime(by: .seconds(1))
        let stalls = collector.all
        try #require(stalls.count == 1)
        #expect(stalls[0].durationNanoseconds == 400e6)
        #expect(stalls[0].sampleCount > 0)
    }

    /// Sampling stops at `maxSamplesPerStall`; the stall is still timed to its end.
    @Test func samplesStopAtTheLimitAndTheStallIsStillTimed() throws {
        let (virtual, collector) = watchdog { $0.maxSamplesPerStall = 5 }
        virtual.work(for: .seconds(3))
        virtual.advanceTime(by: .milliseconds(100))
        try #require(collector.all.count == 1)
        #expect(collector.all[0].sampleCount == 5)
        #expect(collector.all[0].durationNanoseconds == 3e9)
        #expect(virtual.reader.samplesTaken == 5)
    }

    /// A thread asleep in a system call for most samples is blocked, waiting in that call.
    @Test func aThreadAsleepIsBlockedAndSaysWhere() throws {
        let (virtual, collector) = watchdog()
        virtual.reader.state = "S"
        virtual.reader.waitingIn = "futex"
        virtual.work(for: .milliseconds(300))
        virtual.advanceTime(by: .milliseconds(100))
        try #require(collector.all.count == 1)
        #expect(collector.all[0].classification == .blocked)
        #expect(collector.all[0].waitingIn == "futex")
    }

    /// Samples nobody answers (the thread blocks the signal) are counted as such; no call tree.
    @Test func unansweredSamplesLeaveStatesButNoStacks() throws {
        let (virtual, collector) = watchdog()
        virtual.reader.answers = false
        virtual.work(for: .milliseconds(300))
        virtual.advanceTime(by: .milliseconds(100))
        let stall = try #require(collector.all.first)
        #expect(stall.sampleCount > 0)
        #expect(stall.unansweredSamples == stall.sampleCount)
        #expect(stall.callTree == nil)
    }

    /// A pinged target (a queue, an executor) is timed from the first ping it did not answer: a stall
    /// is recorded up to one ping interval (a quarter of the threshold) or resting look shorter than
    /// it was, never longer.
    @Test func aPingedTargetBusyPastTheThresholdIsAStallFromItsFirstUnansweredPing() throws {
        let (virtual, collector) = watchdog(pinged: true)
        virtual.advanceTime(by: .seconds(1))
        #expect(collector.all.isEmpty, "an idle queue answers every ping")
        virtual.work(for: .milliseconds(300))
        virtual.advanceTime(by: .milliseconds(200))
        let stalls = collector.all
        try #require(stalls.count == 1)
        #expect(stalls[0].durationNanoseconds <= 300e6 && stalls[0].durationNanoseconds >= 200e6)
        #expect(stalls[0].threadID == 4242)
        virtual.work(for: .milliseconds(60))
        virtual.advanceTime(by: .seconds(1))
        #expect(collector.all.count == 1, "a late ping under the threshold is no stall")
    }

    /// A ping that waited past the threshold is a stall though no look saw it waiting that long: the
    /// look due at the threshold came late (by less than the pause tolerance) and found it answered.
    /// Timed from its sending to its arrival. Before, nothing was recorded (a 150 ms starvation, 2026-12-06).
    @Test func aPingThatWaitedPastTheThresholdBetweenTwoLooksIsAStall() throws {
        let (virtual, collector) = watchdog(pinged: true)
        virtual.advanceTime(by: .seconds(1))
        virtual.busy()
        virtual.advanceTime(by: .milliseconds(80))
        virtual.pauseProcess(for: .milliseconds(45))
        virtual.idle()
        virtual.advanceTime(by: .milliseconds(200))
        let stalls = collector.all
        try #require(stalls.count == 1, "\(stalls.map(\.durationNanoseconds))")
        #expect(stalls[0].durationNanoseconds >= 100e6 && stalls[0].durationNanoseconds <= 125e6)
        #expect(!stalls[0].ongoing)
    }
}

/// A pool whose long jobs began and ended between two looks (the look came late): told from the
/// jobs' own stamps at the next look, as ``PoolJobsObserver`` tells them from `PoolJobs.c`'s.
extension StallDetectionTests {
    final class EndedJobsObserver: TargetObserver {
        var pending: [EndedJob] = []
        func busyPeriod(now: UInt64) -> BusyPeriod? { nil }
        var lastBusyEnd: UInt64? { nil }
        func endedJobs(now: UInt64) -> [EndedJob] {
            defer { pending = [] }
            return pending
        }
        func starvation(among jobs: [EndedJob]) -> EndedStarvation? {
            PoolJobsObserver.longestOverlap(of: jobs, width: 2).map { overlap in
                EndedStarvation(
                    since: overlap.since, end: overlap.end,
                    threads: overlap.threads.map { PoolThread(id: $0, name: "pool") })
            }
        }
        func restingLook(now: UInt64) -> RestingLook { RestingLook(sawWork: false, needsTheLoop: !pending.isEmpty) }
    }

    /// A pool's watchdog with a 100 ms threshold in virtual time, seeing the pool through `observer`.
    func poolWatchdog(_ observer: some TargetObserver) -> (VirtualTimeWatchdog, StallCollector) {
        let collector = StallCollector()
        var configuration = WatchdogConfiguration(name: "cooperative-pool", threshold: .milliseconds(100))
        configuration.metrics = false
        configuration.onStall = { collector.add($0) }
        return (VirtualTimeWatchdog(configuration: configuration, observer: observer), collector)
    }

    /// The stalls recorded once `jobs` (thread, begin and end in ms from half a second ago) have
    /// ended between two looks of a pool's watchdog with a 100 ms threshold.
    func stalls(afterJobsEnded jobs: [(thread: Int32, from: UInt64, to: UInt64)]) -> [StallRecord] {
        let observer = EndedJobsObserver()
        let (virtual, collector) = poolWatchdog(observer)
        virtual.advanceTime(by: .seconds(1))
        let ms: UInt64 = 1_000_000
        let start = virtual.now - 500 * ms
        observer.pending = jobs.map {
            EndedJob(thread: $0.thread, since: start + $0.from * ms, end: start + $0.to * ms)
        }
        virtual.advanceTime(by: .seconds(1))
        return collector.all
    }

    /// One job of 120 ms is a stall of its thread, timed from its stamps, with no samples and why;
    /// one of 80 ms is none.
    @Test func aLongJobThatEndedBetweenLooksIsAStallWithoutSamples() throws {
        let stalls = stalls(afterJobsEnded: [(7, 0, 120), (8, 200, 280)])
        try #require(stalls.count == 1, "\(stalls.map(\.durationNanoseconds))")
        #expect(stalls[0].threadID == 7)
        #expect(stalls[0].durationNanoseconds == 120e6)
        #expect(stalls[0].sampleCount == 0 && stalls[0].unsampled != nil)
        #expect(!stalls[0].ongoing)
    }

    /// Both pool threads inside a job at once for 150 ms is one starvation of that length, holding
    /// both threads, and their jobs are not reported again.
    @Test func everyPoolThreadInsideAJobThatEndedBetweenLooksIsOneStarvation() throws {
        let stalls = stalls(afterJobsEnded: [(7, 0, 170), (8, 10, 160)])
        try #require(stalls.count == 1, "\(stalls.map { ($0.classification, $0.durationNanoseconds) })")
        #expect(stalls[0].classification == .starved)
        #expect(stalls[0].durationNanoseconds == 150e6)
        #expect(Set(stalls[0].threads?.map(\.threadID) ?? []) == [7, 8])
        #expect(stalls[0].unsampled != nil)
    }

    /// A pool whose one long job the looks watch, then miss between their two reads as it ends: gone
    /// from the running jobs, not yet among the ended ones, which tell it only at a later look.
    final class RacingJobObserver: TargetObserver {
        var running: BusyPeriod?
        var recordedEnd: UInt64?
        var pending: [EndedJob] = []
        func busyPeriod(now: UInt64) -> BusyPeriod? { nil }
        var lastBusyEnd: UInt64? { nil }
        func longJobs(now: UInt64) -> [BusyPeriod] { running.map { [$0] } ?? [] }
        func lastJobEnd(of thread: Int32) -> UInt64? { recordedEnd }
        func endedJobs(now: UInt64) -> [EndedJob] {
            defer { pending = [] }
            return pending
        }
        func restingLook(now: UInt64) -> RestingLook {
            RestingLook(sawWork: running != nil, needsTheLoop: running != nil || !pending.isEmpty)
        }
    }

    /// The job is recorded once, when the looks find it gone; told ended later, it is not recorded
    /// again. (Before: a second record of the same job, unsampled, timed from its stamps.)
    @Test func aJobConcludedBeforeItWasToldEndedIsRecordedOnce() throws {
        let observer = RacingJobObserver()
        let (virtual, collector) = poolWatchdog(observer)
        virtual.advanceTime(by: .seconds(1))
        let since = virtual.now
        observer.running = BusyPeriod(since: since, thread: 7)
        virtual.advanceTime(by: .milliseconds(200))
        let end = virtual.now
        observer.running = nil
        observer.recordedEnd = end
        virtual.advanceTime(by: .milliseconds(100))
        try #require(collector.all.count == 1, "\(collector.all.map(\.durationNanoseconds))")
        observer.pending = [EndedJob(thread: 7, since: since, end: end)]
        virtual.advanceTime(by: .seconds(1))
        let stalls = collector.all
        try #require(stalls.count == 1, "\(stalls.map { ($0.durationNanoseconds, $0.unsampled ?? "sampled") })")
        #expect(stalls[0].threadID == 7 && stalls[0].unsampled == nil)
    }
}
