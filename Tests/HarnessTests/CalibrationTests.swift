import Testing

@testable import Harness

/// Calibration settles on an iteration count whose warm run lasts the target sample time, even
/// when one run is far slower than the others. The instances spin for known times; the margins
/// (the counts must reach half the target, the slow runs give a count 25 times smaller) leave
/// room for a busy machine. Assumed: the host does not preempt two timed runs in a row past the
/// 1 ms target (one such preemption, beside two spinners, failed this test once in 10 suites).
@Suite struct CalibrationTests {
    // Target: max(1 ms minimum, 0.8 × 10 ms budget / 10 samples) = 1 ms.
    static let configuration = RunConfiguration(samples: 10, timeBudgetSeconds: 0.01, minimumSampleNanoseconds: 1e6)
    static let perIteration: UInt64 = 20_000

    @Test func aSlowFirstRunDoesNotSetTheCount() {
        let runner = BenchmarkRunner(configuration: Self.configuration)
        let iterations = runner.calibrate(SpinningInstance(perIteration: Self.perIteration) { run, _ in run == 1 })
        #expect(UInt64(iterations) * Self.perIteration >= 500_000, "calibrated \(iterations) iterations")
    }

    @Test func oneSlowRunIsNotTakenAsTheTarget() {
        let runner = BenchmarkRunner(configuration: Self.configuration)
        // The first run of more than one iteration is slow, as when the host stalls the thread.
        let iterations = runner.calibrate(
            SpinningInstance(perIteration: Self.perIteration) { _, firstWithSeveral in firstWithSeveral })
        #expect(UInt64(iterations) * Self.perIteration >= 500_000, "calibrated \(iterations) iterations")
    }
}

/// The warm-up before a visit's samples runs in steps of a tenth of a sample.
@Suite struct WarmUpTests {
    final class RecordingInstance: BenchmarkInstance {
        var runs: [Int] = []
        func run(iterations: Int) { runs.append(iterations) }
    }

    @Test func aWarmUpShorterThanAStepRunsOneTenthOfASample() {
        let runner = BenchmarkRunner(configuration: CalibrationTests.configuration)
        let instance = RecordingInstance()
        runner.warmUp(instance, iterations: 250, seconds: 0, shouldStop: { false })
        #expect(instance.runs == [25])
        let single = RecordingInstance()
        runner.warmUp(single, iterations: 3, seconds: 0, shouldStop: { false })
        #expect(single.runs == [1])
    }

    @Test func aLongerWarmUpRepeatsStepsUntilItsTimeIsSpent() {
        let runner = BenchmarkRunner(configuration: CalibrationTests.configuration)
        let instance = RecordingInstance()
        runner.warmUp(instance, iterations: 100, seconds: 0.005, shouldStop: { false })
        // Steps of 10 (the bodies are empty, so many of them fit in 5 ms).
        #expect(instance.runs.count > 1)
        #expect(Set(instance.runs) == [10])
    }
}

/// Spins `perIteration` ns per iteration, or 30 ms for a run that `isSlow(runNumber, isFirstRunOfSeveralIterations)`.
private final class SpinningInstance: BenchmarkInstance {
    let perIteration: UInt64
    let isSlow: (Int, Bool) -> Bool
    private var runs = 0
    private var ranSeveral = false

    init(perIteration: UInt64, isSlow: @escaping (Int, Bool) -> Bool) {
        self.perIteration = perIteration
        self.isSlow = isSlow
    }

    func run(iterations: Int) {
        runs += 1
        let firstWithSeveral = iterations > 1 && !ranSeveral
        if iterations > 1 { ranSeveral = true }
        let duration = isSlow(runs, firstWithSeveral) ? 30_000_000 : UInt64(iterations) * perIteration
        let end = MonotonicClock.now() + duration
        while MonotonicClock.now() < end {}
    }
}
