import PerfReport

/// The raw outcome of measuring one benchmark case: samples and what the benchmark said about
/// itself. Analysis (statistics, warnings) is a separate step, see `ResultAnalysis`.
public struct Measurement: Sendable {
    public var benchmark: Benchmark
    public var parameter: Int?
    public var samples: [Sample]
    public var counters: [String: Double]
    /// Set when the time budget ended sampling before `samples` were collected.
    public var stoppedByBudget: Bool
    /// Where the samples' instruction counts came from, when they have any ("callgrind").
    public var instructionsSource: String? = nil
    /// Instructions by function per operation, when callgrind counted them.
    public var functionProfile: FunctionProfile? = nil
    /// CPU time per operation by function, sampled in a pass after the measurement.
    public var timeProfile: FunctionProfile? = nil
    /// Why a time profile was asked for and not taken.
    var timeProfileUnavailable: String? = nil

    public var id: String { benchmark.id(parameter: parameter) }

    /// Adds a later visit's samples. Counters are the later visit's: they describe its instance.
    mutating func append(_ later: Measurement) {
        samples += later.samples
        counters = later.counters
        // Counts are exact: any visit's profile stands for all of them.
        functionProfile = functionProfile ?? later.functionProfile
        stoppedByBudget = stoppedByBudget || later.stoppedByBudget
    }
}

/// Measures benchmarks: calibration, warm-up, then timed samples.
///
/// Runs on the calling thread, one benchmark at a time; nothing else in the process should be
/// busy while it runs.
public final class BenchmarkRunner {
    public let configuration: RunConfiguration
    /// Median cost of a clock read pair, subtracted from every sample.
    public let clockOverheadNanoseconds: Double
    private let counters: HardwareCounters?
    /// Why instruction and cycle counts are missing, when they are.
    public let hardwareCountersUnavailableReason: String?
    /// Set when perfkit runs itself under callgrind (`--instructions`): instructions are counted
    /// there instead, and samples are sized by instructions rather than time.
    let callgrind: CallgrindInstructionCounter?

    public init(configuration: RunConfiguration) {
        self.configuration = configuration
        self.clockOverheadNanoseconds = MonotonicClock.measureOverhead()
        self.callgrind = CallgrindInstructionCounter.fromEnvironment()
        if callgrind != nil {
            self.counters = nil
            self.hardwareCountersUnavailableReason = "running under valgrind (instructions counted by callgrind)"
        } else if configuration.hardwareCounters {
            switch HardwareCounters.open() {
            case .success(let counters):
                self.counters = counters
                self.hardwareCountersUnavailableReason = nil
            case .failure(let unavailable):
                self.counters = nil
                self.hardwareCountersUnavailableReason = unavailable.reason
            }
        } else {
            self.counters = nil
            self.hardwareCountersUnavailableReason = "not requested"
        }
    }

    /// The metrics this runner records, and why the others are missing.
    public var metricAvailability: [MetricAvailability] {
        let counterReason = hardwareCountersUnavailableReason
        let remedies = configuration.remedies
        return [
            MetricAvailability(metric: .wallTime, available: true),
            MetricAvailability(metric: .cpuTime, available: true),
            MetricAvailability(metric: .contextSwitches, available: true),
            MetricAvailability(
                metric: .allocations, available: configuration.allocationCounter != nil,
                reason: configuration.allocationCounter == nil
                    ? Remedies.reason("not requested", remedy: remedies.measure[.allocations]) : nil),
            callgrind != nil
                ? MetricAvailability(
                    metric: .instructions, available: true,
                    reason: "counted by callgrind (valgrind) around the measured region only; time under valgrind "
                        + "is not meaningful")
                : MetricAvailability(
                    metric: .instructions, available: counters != nil,
                    // The counters' reason often ends in parentheses of its own (errno): the remedy follows
                    // after a semicolon.
                    reason: counterReason.map { reason in
                        remedies.measure[.instructions].map { "\(reason); \($0)" } ?? reason
                    }),
            MetricAvailability(metric: .cycles, available: counters != nil, reason: counterReason),
        ]
    }

    /// Measures one case in one visit (the whole configuration). `shouldStop` is polled between
    /// samples (Ctrl-C); when it returns true the partial measurement is returned as nil so an
    /// interrupted benchmark is not reported.
    public func measure(
        _ benchmark: Benchmark, parameter: Int?, shouldStop: () -> Bool = { false }
    ) throws -> Measurement? {
        try measure(
            benchmark, parameter: parameter, visit: configuration.visit(round: 0, of: 1), iterations: nil,
            shouldStop: shouldStop)
    }

    /// Measures one visit to a case with a fresh instance: `iterations` is the count an earlier
    /// visit calibrated (nil on the first visit, which calibrates). Each timed visit gets a random
    /// heap and stack placement (``LayoutJitter``); a callgrind visit keeps the natural one.
    func measure(
        _ benchmark: Benchmark, parameter: Int?, visit: RunConfiguration.Visit, iterations calibrated: Int?,
        shouldStop: () -> Bool
    ) throws -> Measurement? {
        if callgrind != nil {
            return try measureOnce(
                benchmark, parameter: parameter, visit: visit, iterations: calibrated, shouldStop: shouldStop)
        }
        return try LayoutJitter.withRandomPlacement {
            try measureOnce(
                benchmark, parameter: parameter, visit: visit, iterations: calibrated, shouldStop: shouldStop)
        }
    }

    private func measureOnce(
        _ benchmark: Benchmark, parameter: Int?, visit: RunConfiguration.Visit, iterations calibrated: Int?,
        shouldStop: () -> Bool
    ) throws -> Measurement? {
        let instance = try benchmark.instantiate(parameter: parameter)
        defer { instance.tearDown() }

        if let callgrind {
            guard
                let counted = measureCountingInstructions(
                    instance, id: benchmark.id(parameter: parameter), callgrind: callgrind, shouldStop: shouldStop)
            else { return nil }
            return Measurement(
                benchmark: benchmark, parameter: parameter, samples: counted.samples, counters: instance.counters,
                stoppedByBudget: false, instructionsSource: CallgrindInstructionCounter.source,
                functionProfile: counted.profile)
        }
        let iterations = calibrated ?? calibrate(instance)
        warmUp(instance, iterations: iterations, seconds: visit.warmupSeconds, shouldStop: shouldStop)

        var samples: [Sample] = []
        samples.reserveCapacity(visit.samples)
        let budget = visit.timeBudgetSeconds * 1e9
        let start = MonotonicClock.now()
        var stoppedByBudget = false
        while samples.count < visit.samples {
            if shouldStop() { return nil }
            samples.append(
                sample(
                    instance, iterations: iterations, label: benchmark.id(parameter: parameter), regionCounter: counters
                ))
            if samples.count >= visit.minimumSamples, Double(MonotonicClock.now() - start) > budget,
                samples.count < visit.samples
            {
                stoppedByBudget = true
                break
            }
        }
        return Measurement(
            benchmark: benchmark, parameter: parameter, samples: samples, counters: instance.counters,
            stoppedByBudget: stoppedByBudget)
    }

    /// Runs a fresh instance of the case under `profiler`, in chunks of `iterations` (a sample's),
    /// after its measurement, one chunk first to warm it; the profile, or why none was taken.
    func profile(
        _ benchmark: Benchmark, parameter: Int?, iterations: Int, profiler: any OperationProfiler
    ) throws -> Result<FunctionProfile, OperationProfilerError> {
        let instance = try benchmark.instantiate(parameter: parameter)
        defer { instance.tearDown() }
        let chunk = max(1, iterations)
        instance.run(iterations: chunk)
        return profiler.profile {
            instance.run(iterations: chunk)
            return chunk
        }
    }

    /// Finds an iteration count whose run lasts at least the target sample time: grow geometrically
    /// until a run takes a measurable time, scale linearly towards the target, and keep scaling until
    /// a run at the count really lasts that long. The first run is not timed and a count needs a second
    /// run to confirm it: a fresh instance's first run can cost milliseconds later runs do not
    /// (docs/dispatchbench-findings.md#why-the-10th-percentile-and-what-two-threads-needed).
    func calibrate(_ instance: any BenchmarkInstance) -> Int {
        let target = configuration.targetSampleNanoseconds
        instance.run(iterations: 1)
        var iterations = 1
        while true {
            var elapsed = time(instance, iterations: iterations)
            // One slow run (the host's hiccup) would settle on too few iterations for the whole run,
            // one iteration too: a 20 µs body preempted past a 1 ms target on a busy CI host
            // (test-under-load.sh, 2026-11-29). A body 20 targets long is no hiccup: not run twice.
            if elapsed >= target, iterations > 1 || elapsed < 20 * target {
                elapsed = min(elapsed, time(instance, iterations: iterations))
            }
            if elapsed >= target { return iterations }
            // A body too cheap to time even at 2^40 iterations (an empty one) costs nothing measurable.
            guard iterations < 1 << 40 else { return iterations }
            if elapsed >= target / 20 {
                // Long enough to extrapolate from; 10% headroom keeps us above the target.
                iterations = max(iterations + 1, Int((Double(iterations) * target * 1.1 / elapsed).rounded(.up)))
            } else {
                iterations *= elapsed < target / 1000 ? 16 : 4
            }
        }
    }

    /// Runs the instance for `seconds`, in steps of a tenth of a sample's iterations, and at least
    /// one step: the first step wakes its threads and touches its memory, while a whole sample per
    /// step doubled the cost of a one-sample visit (a GCD comparison's).
    func warmUp(_ instance: any BenchmarkInstance, iterations: Int, seconds: Double, shouldStop: () -> Bool) {
        let step = max(1, iterations / 10)
        let end = MonotonicClock.now() + UInt64(seconds * 1e9)
        repeat {
            _ = time(instance, iterations: step)
        } while MonotonicClock.now() < end && !shouldStop()
    }

    private func time(_ instance: any BenchmarkInstance, iterations: Int) -> Double {
        let start = MonotonicClock.now()
        instance.run(iterations: iterations)
        let end = MonotonicClock.now()
        return max(0, Double(end - start) - clockOverheadNanoseconds)
    }

    /// One sample: the slow reads (rusage, CPU clock, counters) bracket the wall-clock window
    /// rather than sit inside it.
    func sample(
        _ instance: any BenchmarkInstance, iterations: Int, label: String, regionCounter: (any RegionCounter)?
    ) -> Sample {
        let allocationCounter = configuration.allocationCounter
        let runnableBefore = RunnableTasks.others()
        let switchesBefore = ContextSwitches.now()
        let cpuBefore = MonotonicClock.processCPU()
        allocationCounter?.start()
        regionCounter?.start()
        let start = MonotonicClock.now()
        instance.run(iterations: iterations)
        let end = MonotonicClock.now()
        regionCounter?.pause()
        let allocations = allocationCounter?.stop()
        let counts = regionCounter?.read(label: label)
        let cpuAfter = MonotonicClock.processCPU()
        let switchesAfter = ContextSwitches.now()
        let runnableAfter = RunnableTasks.others()
        var otherRunnable: Double? = nil
        if let runnableBefore, let runnableAfter { otherRunnable = Double(runnableBefore + runnableAfter) / 2 }
        return Sample(
            iterations: iterations,
            wallNanoseconds: max(0, Double(end - start) - clockOverheadNanoseconds),
            cpuNanoseconds: Double(cpuAfter - cpuBefore),
            voluntaryContextSwitches: Int(switchesAfter.voluntary - switchesBefore.voluntary),
            involuntaryContextSwitches: Int(switchesAfter.involuntary - switchesBefore.involuntary),
            allocations: allocations?.count,
            allocatedBytes: allocations?.bytes,
            instructions: counts?.instructions,
            cycles: counts?.cycles,
            otherRunnableTasks: otherRunnable)
    }
}
