/// Where a report was measured. Numbers from two different environments are not comparable
/// for time, so the comparison and HTML views show this prominently.
public struct Environment: Codable, Sendable, Equatable {
    public var host: String
    public var os: String
    public var kernel: String
    public var cpuModel: String
    public var coreCount: Int
    public var memoryBytes: UInt64?
    public var swiftVersion: String
    /// "release" or "debug".
    public var buildConfiguration: String
    public var gitCommit: String?
    /// 1, 5 and 15 minute load averages at the start of the run.
    public var loadAverage: [Double]
    /// e.g. "performance" or "schedutil"; nil when the machine exposes no cpufreq governor.
    public var cpuGovernor: String?
    /// The machine architecture the benchmarks ran as ("x86_64", "aarch64"); nil in reports made
    /// before it was recorded.
    public var architecture: String?
    /// What emulated that architecture (e.g. "qemu-user"); nil on real hardware. Emulated times
    /// say nothing about the hardware of that architecture.
    public var emulator: String?
    /// True when the run's processes hashed with Swift's one fixed seed (`SWIFT_DETERMINISTIC_HASHING`
    /// set), false when each drew its own; nil in reports made before it was recorded. Times of a
    /// hashing benchmark taken one way do not compare with times taken the other.
    public var deterministicHashing: Bool?

    public init(
        host: String, os: String, kernel: String, cpuModel: String, coreCount: Int, memoryBytes: UInt64?,
        swiftVersion: String, buildConfiguration: String, gitCommit: String?, loadAverage: [Double],
        cpuGovernor: String?, architecture: String? = nil, emulator: String? = nil,
        deterministicHashing: Bool? = nil
    ) {
        self.host = host
        self.os = os
        self.kernel = kernel
        self.cpuModel = cpuModel
        self.coreCount = coreCount
        self.memoryBytes = memoryBytes
        self.swiftVersion = swiftVersion
        self.buildConfiguration = buildConfiguration
        self.gitCommit = gitCommit
        self.loadAverage = loadAverage
        self.cpuGovernor = cpuGovernor
        self.architecture = architecture
        self.emulator = emulator
        self.deterministicHashing = deterministicHashing
    }
}

extension Environment {
    /// The one sentence every view shows for an emulated run, or nil on real hardware.
    public var emulationNote: String? {
        guard let emulator else { return nil }
        let architecture = architecture ?? "this architecture"
        return
            "measured as \(architecture) under \(emulator): its times, and verdicts decided by time, say nothing about \(architecture) hardware"
    }
}

/// The knobs a run used, so a reader knows what the numbers are based on.
public struct RunSettings: Codable, Sendable, Equatable {
    public var filter: String?
    public var quick: Bool
    public var samples: Int
    public var timeBudgetSeconds: Double
    public var warmupSeconds: Double
    public var minSampleNanoseconds: Double
    public var allocations: Bool
    public var instructions: Bool
    /// Rounds over the selection that the samples were spread over (1 in reports from before
    /// rounds existed).
    public var rounds: Int
    /// How the run spent its samples: "quick", "default" (each benchmark stops once its answer is
    /// clear) or "thorough" (every benchmark takes all its samples). Nil in older reports.
    public var profile: String?
    /// How many processes the benchmarks were measured in (`run --processes N`); nil for one.
    public var processes: Int? = nil

    public init(
        filter: String?, quick: Bool, samples: Int, timeBudgetSeconds: Double, warmupSeconds: Double,
        minSampleNanoseconds: Double, allocations: Bool, instructions: Bool, rounds: Int = 1, profile: String? = nil
    ) {
        self.filter = filter
        self.quick = quick
        self.samples = samples
        self.timeBudgetSeconds = timeBudgetSeconds
        self.warmupSeconds = warmupSeconds
        self.minSampleNanoseconds = minSampleNanoseconds
        self.allocations = allocations
        self.instructions = instructions
        self.rounds = rounds
        self.profile = profile
    }

    private enum CodingKeys: String, CodingKey {
        case filter, quick, samples, timeBudgetSeconds, warmupSeconds, minSampleNanoseconds, allocations,
            instructions, rounds, profile, processes
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        filter = try container.decodeIfPresent(String.self, forKey: .filter)
        quick = try container.decode(Bool.self, forKey: .quick)
        samples = try container.decode(Int.self, forKey: .samples)
        timeBudgetSeconds = try container.decode(Double.self, forKey: .timeBudgetSeconds)
        warmupSeconds = try container.decode(Double.self, forKey: .warmupSeconds)
        minSampleNanoseconds = try container.decode(Double.self, forKey: .minSampleNanoseconds)
        allocations = try container.decode(Bool.self, forKey: .allocations)
        instructions = try container.decode(Bool.self, forKey: .instructions)
        rounds = try container.decodeIfPresent(Int.self, forKey: .rounds) ?? 1
        profile = try container.decodeIfPresent(String.self, forKey: .profile)
        processes = try container.decodeIfPresent(Int.self, forKey: .processes)
    }
}

/// The measuring clock's own cost, measured at the start of every run.
public struct ClockInfo: Codable, Sendable, Equatable {
    /// e.g. "CLOCK_MONOTONIC".
    public var source: String
    /// Resolution reported by `clock_getres`, in ns.
    public var resolutionNanoseconds: Double
    /// Median cost of one back-to-back pair of clock reads, in ns; subtracted from every sample.
    public var overheadNanoseconds: Double

    public init(source: String, resolutionNanoseconds: Double, overheadNanoseconds: Double) {
        self.source = source
        self.resolutionNanoseconds = resolutionNanoseconds
        self.overheadNanoseconds = overheadNanoseconds
    }
}

/// A metric and whether it could be measured here. Unavailable metrics are listed with the
/// reason instead of disappearing from the report.
public struct MetricAvailability: Codable, Sendable, Equatable {
    public var metric: Metric
    public var available: Bool
    /// Why not (for example "perf_event_open: hardware counters not supported on this machine"),
    /// or why it was not requested.
    public var reason: String?

    public init(metric: Metric, available: Bool, reason: String? = nil) {
        self.metric = metric
        self.available = available
        self.reason = reason
    }
}

public enum Metric: String, Codable, Sendable, CaseIterable, Comparable {
    case wallTime
    case cpuTime
    case contextSwitches
    case allocations
    case instructions
    case cycles

    public static func < (lhs: Metric, rhs: Metric) -> Bool { lhs.rawValue < rhs.rawValue }
}
