/// How long and how often to measure each benchmark.
public struct RunConfiguration: Sendable {
    /// Samples to collect per benchmark (the time budget may stop earlier, never below `minimumSamples`).
    public var samples: Int
    public var minimumSamples: Int
    /// Wall-time budget per benchmark case for the measured samples, in seconds.
    public var timeBudgetSeconds: Double
    /// Warm-up time per benchmark case before the first sample, in seconds.
    public var warmupSeconds: Double
    /// A sample lasts at least this long, so the clock's resolution and overhead are negligible.
    public var minimumSampleNanoseconds: Double
    public var allocationCounter: (any AllocationCounter)?
    /// Try to read instruction and cycle counters (`perf_event_open`).
    public var hardwareCounters: Bool
    /// Rounds over the selection: an interleaved benchmark gets this many visits, each with a share
    /// of its samples, budget and a fresh instance (spread evenly over a run that has more rounds
    /// because an every-sample benchmark is selected; see `VisitPlan`). A noise burst or an unlucky
    /// heap layout then touches only part of a benchmark's samples, which keeps its median steady
    /// from one process to the next.
    public var rounds: Int
    /// The most samples, and so visits, a benchmark that takes every sample in a visit of its own
    /// gets, whatever its sample factor (nil: no limit). The visits set a run's rounds, and a round
    /// passes every such benchmark: a full run gives a contended lock 100 one-sample visits, so that
    /// its comparisons repeat from one run to the next, which a quick run, a smoke check that must
    /// stay short, does not need.
    public var maximumFreshVisits: Int?
    /// Stops measuring a benchmark once its answer is clear (nil: every benchmark takes all its samples).
    public var stopping: SequentialStopping?
    /// The confidence level of the run's final analysis (``DecisionLevel``).
    public var decisionLevel: Double
    /// What the report's reason for a metric it does not have tells the user to do.
    public var remedies = Remedies()
    /// Takes a time profile of every benchmark after its measurement (`run --profile`); nil: none.
    package var operationProfiler: (any OperationProfiler)? = nil

    public init(
        samples: Int = 25, minimumSamples: Int = 5, timeBudgetSeconds: Double = 1.0, warmupSeconds: Double = 0.1,
        minimumSampleNanoseconds: Double = 1_000_000, allocationCounter: (any AllocationCounter)? = nil,
        hardwareCounters: Bool = true, rounds: Int = 5, maximumFreshVisits: Int? = nil,
        stopping: SequentialStopping? = nil, decisionLevel: Double = DecisionLevel.final
    ) {
        self.samples = samples
        self.minimumSamples = min(minimumSamples, samples)
        self.timeBudgetSeconds = timeBudgetSeconds
        self.warmupSeconds = warmupSeconds
        self.minimumSampleNanoseconds = minimumSampleNanoseconds
        self.allocationCounter = allocationCounter
        self.hardwareCounters = hardwareCounters
        self.rounds = max(1, rounds)
        self.maximumFreshVisits = maximumFreshVisits.map { max(1, $0) }
        self.stopping = stopping
        self.decisionLevel = decisionLevel
    }

    /// `perfkit run`'s default: a benchmark stops once its answer is clear (``SequentialStopping``),
    /// one that takes every sample from a fresh visit at 40 visits, decided or not (looks at 20 and 30).
    /// Half the thorough profile's sample time and warm-up: a GCD comparison's evidence is the spread
    /// between fresh visits (docs/measurement.md#how-long-a-run-measures-default-quick-thorough).
    public static let standard = RunConfiguration(
        timeBudgetSeconds: 0.5, warmupSeconds: 0.05, maximumFreshVisits: 40,
        stopping: SequentialStopping(looks: [20, 30]))

    /// Every benchmark takes all its samples: 100–200 one-sample visits for a GCD comparison, for the
    /// close calls that 40 leave open.
    public static let thorough = RunConfiguration()

    /// The CI configuration: fewer, shorter samples in one round (`perfkit ci` interleaves whole
    /// processes instead), and 20 one-sample visits at most, the fewest that DispatchBench pairs. It
    /// is the default run's first look, and decides as strictly: a claim whose evidence would not
    /// have stopped the default run there is inconclusive, so on the same samples a quick run says no
    /// more than that look would (a claim whose ratio moves between processes can still differ between
    /// runs; docs/measurement.md).
    public static let quick = RunConfiguration(
        samples: 10, minimumSamples: 5, timeBudgetSeconds: 0.12, warmupSeconds: 0.02, rounds: 1,
        maximumFreshVisits: 20, decisionLevel: DecisionLevel.interim)

    /// Each sample aims for this long: the budget spread over the samples, but never below the minimum.
    var targetSampleNanoseconds: Double {
        max(minimumSampleNanoseconds, 0.8 * timeBudgetSeconds * 1e9 / Double(max(samples, 1)))
    }

    /// What one visit to a benchmark measures: everything when it is measured in one visit,
    /// otherwise round `round`'s share of the samples, minimum and budget. The first visit warms
    /// up for the whole warm-up time; later visits, to a fresh instance of an already warm code
    /// path, for their share of it.
    func visit(round: Int, of rounds: Int) -> Visit {
        guard rounds > 1 else {
            return Visit(
                samples: samples, minimumSamples: minimumSamples, timeBudgetSeconds: timeBudgetSeconds,
                warmupSeconds: warmupSeconds)
        }
        let share = samples / rounds + (round < samples % rounds ? 1 : 0)
        let minimumShare = (minimumSamples + rounds - 1) / rounds
        return Visit(
            samples: share, minimumSamples: min(share, max(1, minimumShare)),
            timeBudgetSeconds: timeBudgetSeconds / Double(rounds),
            warmupSeconds: round == 0 ? warmupSeconds : warmupSeconds / Double(rounds))
    }

    /// The measurement plan of one visit to one benchmark.
    struct Visit: Equatable {
        var samples: Int
        var minimumSamples: Int
        var timeBudgetSeconds: Double
        var warmupSeconds: Double
    }
}
