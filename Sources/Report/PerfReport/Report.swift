import Foundation
import ProbeRecords

/// The one document every part of perfkit writes and reads.
///
/// It is plain data: producers (the benchmark runner, Probe, `perfkit startup`) fill it in,
/// consumers (`compare`, the HTML and Google Benchmark writers) read it. Bump
/// ``Report/currentSchemaVersion`` and `Schema/report.schema.json` together whenever
/// a field changes meaning or a required field is added.
public struct Report: Codable, Sendable, Equatable {
    /// 2: comparison entries save their `reason` beside the `explanation` worded from it.
    public static let currentSchemaVersion = 2
    /// The versions this perfkit loads; an older one is read as the current version (a version-1
    /// comparison entry keeps its words as its reason).
    public static let readableSchemaVersions = 1...currentSchemaVersion

    public var schemaVersion: Int
    public var tool: ToolInfo
    /// When the run started (ISO-8601 in JSON).
    public var createdAt: Date
    /// False when the run was interrupted (Ctrl-C) or a benchmark failed; what finished is kept.
    public var complete: Bool
    public var incompleteReason: String?
    public var environment: Environment
    public var settings: RunSettings
    public var clock: ClockInfo
    /// Every metric perfkit knows about, and whether this run could measure it.
    public var metrics: [MetricAvailability]
    public var benchmarks: [BenchmarkResult]
    /// Present when the run was compared with a baseline (`perfkit run --baseline`).
    public var comparison: Comparison?
    /// Watchdog stalls recorded during the run (Probe), if any were collected.
    public var stalls: [StallRecord]?
    /// Startup-phase timings (`perfkit startup`), if any were collected.
    public var startup: [StartupResult]?
    /// The machine's factor in each round of each process, when a process ran several rounds
    /// (`perfkit run`); nil in reports of older perfkits.
    public var roundFactors: RoundFactors?
    /// A baseline's far-spread benchmarks (and the quickest others, for the machine's factor) measured
    /// again in a few processes that all hashed with Swift's one fixed seed (`SWIFT_DETERMINISTIC_HASHING=1`),
    /// to tell whether the seed is what moves them (``ProcessSpread/fixedHashSeedSpreadPercent``). Apart
    /// from `benchmarks`, whose processes each hashed with a seed of its own, and compared with nothing:
    /// a change's cost can itself depend on the seed (docs/regression-gate.md, "One fixed hash seed").
    public var fixedHashSeedProcesses: [BenchmarkResult]?

    public init(
        tool: ToolInfo = ToolInfo(),
        createdAt: Date,
        complete: Bool = true,
        incompleteReason: String? = nil,
        environment: Environment,
        settings: RunSettings,
        clock: ClockInfo,
        metrics: [MetricAvailability],
        benchmarks: [BenchmarkResult],
        comparison: Comparison? = nil,
        stalls: [StallRecord]? = nil,
        startup: [StartupResult]? = nil,
        roundFactors: RoundFactors? = nil,
        fixedHashSeedProcesses: [BenchmarkResult]? = nil
    ) {
        self.schemaVersion = Report.currentSchemaVersion
        self.tool = tool
        self.createdAt = createdAt
        self.complete = complete
        self.incompleteReason = incompleteReason
        self.environment = environment
        self.settings = settings
        self.clock = clock
        self.metrics = metrics
        self.benchmarks = benchmarks
        self.comparison = comparison
        self.stalls = stalls
        self.startup = startup
        self.roundFactors = roundFactors
        self.fixedHashSeedProcesses = fixedHashSeedProcesses
    }
}

public struct ToolInfo: Codable, Sendable, Equatable {
    public var name: String
    public var version: String

    public init(name: String = "perfkit", version: String = perfkitVersion) {
        self.name = name
        self.version = version
    }
}

public let perfkitVersion = "0.1.0"
