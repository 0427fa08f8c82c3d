/// Everything measured for one benchmark case (one parameter value of one benchmark).
public struct BenchmarkResult: Codable, Sendable, Equatable {
    /// `suite/group/case`, with `[parameter]` appended for parameterised benchmarks. Unique in a report.
    public var id: String
    public var suite: String
    public var group: String
    public var name: String
    public var parameter: Int?
    public var throughput: Throughput?
    /// Regression threshold for this benchmark in percent when it differs from the run's default
    /// (noisy families such as thread hops declare a wider one next to the benchmark).
    public var thresholdPercent: Double?
    /// Every sample as measured. Nothing is dropped, outliers included.
    public var samples: [Sample]
    /// Statistics of wall time per operation, in ns.
    public var wallTime: Statistics
    /// Statistics of process CPU time per operation, in ns.
    public var cpuTime: Statistics?
    /// Mean allocations and allocated bytes per operation, when counted.
    public var allocationsPerOperation: Double?
    public var allocatedBytesPerOperation: Double?
    /// Mean instructions per operation, when counted (hardware counter or callgrind).
    public var instructionsPerOperation: Double?
    /// Where `instructionsPerOperation` came from: "perf_event" or "callgrind".
    public var instructionsSource: String?
    /// Warnings about this result, e.g. an unstable spread, with the rule that fired.
    public var warnings: [Warning]
    /// Extra numbers a benchmark reports about itself (observer firings, peak threads, …).
    public var counters: [String: Double]
    /// What the benchmark tests and whether it held (DispatchBench and friends).
    public var claim: Claim?
    /// How the measured call was compiled in the measured binary (dispatch benchmarks).
    public var compiledForm: CompiledForm?
    /// The medians of each process, when the benchmark was measured in several (`run --processes N`).
    public var processSpread: ProcessSpread? = nil
    /// The GNU build ID of the executable that measured it (hex): runs with the same one ran the
    /// same machine code. Nil where the executable has none, and in reports of older perfkits.
    public var executableBuildID: String? = nil
    /// Instructions per operation by function (callgrind runs only): where the count went, so a
    /// count regression can name the functions that grew.
    public var functionProfile: FunctionProfile? = nil
    /// CPU time per operation by function, in ns, sampled on the benchmark's thread every 1 ms in
    /// a pass after the measurement (`run --profile`, the gate's regressions): where the time went.
    public var timeProfile: FunctionProfile? = nil

    public init(
        id: String, suite: String, group: String, name: String, parameter: Int? = nil,
        throughput: Throughput? = nil, thresholdPercent: Double? = nil, samples: [Sample],
        wallTime: Statistics, cpuTime: Statistics? = nil, allocationsPerOperation: Double? = nil,
        allocatedBytesPerOperation: Double? = nil, instructionsPerOperation: Double? = nil,
        instructionsSource: String? = nil, warnings: [Warning] = [], counters: [String: Double] = [:],
        claim: Claim? = nil, compiledForm: CompiledForm? = nil
    ) {
        self.id = id
        self.suite = suite
        self.group = group
        self.name = name
        self.parameter = parameter
        self.throughput = throughput
        self.thresholdPercent = thresholdPercent
        self.samples = samples
        self.wallTime = wallTime
        self.cpuTime = cpuTime
        self.allocationsPerOperation = allocationsPerOperation
        self.allocatedBytesPerOperation = allocatedBytesPerOperation
        self.instructionsPerOperation = instructionsPerOperation
        self.instructionsSource = instructionsSource
        self.warnings = warnings
        self.counters = counters
        self.claim = claim
        self.compiledForm = compiledForm
    }

    /// Wall time per operation of every sample, in ns, after the clock's overhead was removed.
    public var wallNanosecondsPerOperation: [Double] { samples.map(\.wallNanosecondsPerOperation) }
}

/// One timed run of `iterations` operations.
public struct Sample: Codable, Sendable, Equatable {
    public var iterations: Int
    /// Elapsed wall time of the whole sample, in ns, clock overhead already subtracted.
    public var wallNanoseconds: Double
    /// Process CPU time (user + system, all threads) of the sample, in ns.
    public var cpuNanoseconds: Double?
    public var voluntaryContextSwitches: Int?
    public var involuntaryContextSwitches: Int?
    public var allocations: Int?
    public var allocatedBytes: Int?
    public var instructions: Double?
    public var cycles: Double?
    /// The round of the run (0-based) whose visit took this sample. Two benchmarks sampled once in
    /// the same round were measured side by side, so their samples can be compared in pairs.
    public var round: Int?
    /// The process (0-based) that took this sample, when the run measured in several
    /// (`run --processes N`): samples of one process share its hash seed, memory layout and the
    /// machine's state of that moment, so they vary less among themselves than between processes.
    public var process: Int?
    /// How many other tasks of the machine were runnable (running or waiting for a CPU) as the
    /// sample began and as it ended, averaged: the running count of `/proc/loadavg` less the thread
    /// that took the sample (Linux; nil elsewhere). Other processes' work competing for the CPUs a
    /// many-thread benchmark needs (docs/dispatchbench-findings.md#claims-on-a-busy-machine).
    public var otherRunnableTasks: Double?

    public init(
        iterations: Int, wallNanoseconds: Double, cpuNanoseconds: Double? = nil,
        voluntaryContextSwitches: Int? = nil, involuntaryContextSwitches: Int? = nil, allocations: Int? = nil,
        allocatedBytes: Int? = nil, instructions: Double? = nil, cycles: Double? = nil, round: Int? = nil,
        process: Int? = nil, otherRunnableTasks: Double? = nil
    ) {
        self.iterations = iterations
        self.wallNanoseconds = wallNanoseconds
        self.cpuNanoseconds = cpuNanoseconds
        self.voluntaryContextSwitches = voluntaryContextSwitches
        self.involuntaryContextSwitches = involuntaryContextSwitches
        self.allocations = allocations
        self.allocatedBytes = allocatedBytes
        self.instructions = instructions
        self.cycles = cycles
        self.round = round
        self.process = process
        self.otherRunnableTasks = otherRunnableTasks
    }

    public var wallNanosecondsPerOperation: Double { wallNanoseconds / Double(max(iterations, 1)) }
}

/// How much work one operation does, so the report can show bytes/s or items/s.
public struct Throughput: Codable, Sendable, Equatable {
    public enum Unit: String, Codable, Sendable { case bytes, items }
    public var unit: Unit
    public var perOperation: Double

    public init(unit: Unit, perOperation: Double) {
        self.unit = unit
        self.perOperation = perOperation
    }

    public static func bytes(_ n: Int) -> Throughput { Throughput(unit: .bytes, perOperation: Double(n)) }
    public static func items(_ n: Int) -> Throughput { Throughput(unit: .items, perOperation: Double(n)) }

    /// Units per second at the given time per operation.
    public func perSecond(nanosecondsPerOperation: Double) -> Double {
        nanosecondsPerOperation > 0 ? perOperation * 1e9 / nanosecondsPerOperation : 0
    }
}

/// Summary statistics of one metric over the samples (all values in the metric's unit, e.g. ns/op).
public struct Statistics: Codable, Sendable, Equatable {
    public var count: Int
    public var min: Double
    public var max: Double
    public var mean: Double
    public var median: Double
    /// Sample standard deviation (n − 1).
    public var standardDeviation: Double
    /// Coefficient of variation: standardDeviation / mean (a fraction, not percent).
    public var coefficientOfVariation: Double
    /// Median absolute deviation from the median (unscaled).
    public var medianAbsoluteDeviation: Double
    public var p90: Double
    public var p99: Double
    /// Bootstrap 95% confidence interval of the median.
    public var medianConfidenceInterval: ConfidenceInterval
    public var outliers: OutlierCounts

    public init(
        count: Int, min: Double, max: Double, mean: Double, median: Double, standardDeviation: Double,
        coefficientOfVariation: Double, medianAbsoluteDeviation: Double, p90: Double, p99: Double,
        medianConfidenceInterval: ConfidenceInterval, outliers: OutlierCounts
    ) {
        self.count = count
        self.min = min
        self.max = max
        self.mean = mean
        self.median = median
        self.standardDeviation = standardDeviation
        self.coefficientOfVariation = coefficientOfVariation
        self.medianAbsoluteDeviation = medianAbsoluteDeviation
        self.p90 = p90
        self.p99 = p99
        self.medianConfidenceInterval = medianConfidenceInterval
        self.outliers = outliers
    }
}

public struct ConfidenceInterval: Codable, Sendable, Equatable {
    public var lower: Double
    public var upper: Double
    /// e.g. 0.95.
    public var level: Double

    public init(lower: Double, upper: Double, level: Double) {
        self.lower = lower
        self.upper = upper
        self.level = level
    }
}

/// Tukey-fence outlier counts: mild beyond 1.5 × IQR, severe beyond 3 × IQR. Reported, never dropped.
public struct OutlierCounts: Codable, Sendable, Equatable {
    public var lowSevere: Int
    public var lowMild: Int
    public var highMild: Int
    public var highSevere: Int

    public init(lowSevere: Int = 0, lowMild: Int = 0, highMild: Int = 0, highSevere: Int = 0) {
        self.lowSevere = lowSevere
        self.lowMild = lowMild
        self.highMild = highMild
        self.highSevere = highSevere
    }

    public var total: Int { lowSevere + lowMild + highMild + highSevere }
}

public struct Warning: Codable, Sendable, Equatable {
    /// A stable identifier of the rule that fired, e.g. "cv-above-5-percent".
    public var rule: String
    public var message: String

    public init(rule: String, message: String) {
        self.rule = rule
        self.message = message
    }
}

/// A claim developers repeat, and whether this run supports it.
public struct Claim: Codable, Sendable, Equatable {
    public enum Verdict: String, Codable, Sendable {
        case held
        case didNotHold = "did-not-hold"
        case inconclusive
    }
    public var statement: String
    public var verdict: Verdict
    /// The numbers that decided the verdict, in words.
    public var evidence: String
    /// The ids of the results this one was judged against (a timing comparison's baseline), when
    /// the verdict depends on others: a run that stops sampling once a claim is decided keeps
    /// sampling these as long as the claim is open, so that the two stay paired.
    public var comparedWith: [String]?

    public init(statement: String, verdict: Verdict, evidence: String, comparedWith: [String]? = nil) {
        self.statement = statement
        self.verdict = verdict
        self.evidence = evidence
        self.comparedWith = comparedWith
    }
}

/// How a call site was compiled, found by disassembling the measured binary.
public struct CompiledForm: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case inlined, direct, vtable
        case witnessTable = "witness-table"
        case indirect, unknown
    }
    public var kind: Kind
    /// The function that was disassembled (mangled) and the relevant instructions.
    public var symbol: String
    public var evidence: [String]

    public init(kind: Kind, symbol: String, evidence: [String]) {
        self.kind = kind
        self.symbol = symbol
        self.evidence = evidence
    }
}
