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

    public init(
        samples: Int = 25, minimumSamples: Int = 5, timeBudgetSeconds: Double = 1.0, warmupSeconds: Double = 0.1,
        minimumSampleNanoseconds: Double = 1_000_000, allocationCounter: (any AllocationCounter)? = nil,
        hardwareCounters: Bool = true
    ) {
        self.samples = samples
        self.minimumSamples = min(minimumSamples, samples)
        self.timeBudgetSeconds = timeBudgetSeconds
        self.warmupSeconds = warmupSeconds
        self.minimumSampleNanoseconds = minimumSampleNanoseconds
        self.allocationCounter = allocationCounter
        self.hardwareCounters = hardwareCounters
    }

    /// The CI configuration: fewer, shorter samples.
    public static let quick = RunConfiguration(
        samples: 10, minimumSamples: 5, timeBudgetSeconds: 0.12, warmupSeconds: 0.02)

    /// Each sample aims for this long: the budget spread over the samples, but never below the minimum.
    var targetSampleNanoseconds: Double {
        max(minimumSampleNanoseconds, 0.8 * timeBudgetSeconds * 1e9 / Double(max(samples, 1)))
    }
}
