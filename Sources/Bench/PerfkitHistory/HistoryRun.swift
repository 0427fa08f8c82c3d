import Foundation
import PerfReport

/// One run as the history keeps it: where and at which commit it was measured, and per benchmark
/// the numbers a trend needs. Plain data between the stores and the analysis.
public struct HistoryRun: Sendable, Equatable {
    /// Identifies the report's content: the same report added twice is one run.
    public var digest: String
    public var machine: MachineFingerprint
    /// The commit measured, without the "-dirty" mark of a report measured with local changes.
    public var commit: String?
    /// True when the working tree had uncommitted changes: the numbers are not the commit's.
    public var dirty: Bool
    /// How many commits `git rev-list --first-parent --count` counted to the commit when it was
    /// added (its place along the first-parent history of the repository it was added in).
    public var commitPosition: Int?
    public var branch: String?
    public var createdAt: Date
    /// "quick", "default" or "thorough".
    public var profile: String?
    public var complete: Bool
    public var results: [HistoryResult]

    public init(
        digest: String, machine: MachineFingerprint, commit: String?, dirty: Bool, commitPosition: Int?,
        branch: String?, createdAt: Date, profile: String?, complete: Bool, results: [HistoryResult]
    ) {
        self.digest = digest
        self.machine = machine
        self.commit = commit
        self.dirty = dirty
        self.commitPosition = commitPosition
        self.branch = branch
        self.createdAt = createdAt
        self.profile = profile
        self.complete = complete
        self.results = results
    }
}

/// One benchmark's value of one metric in one run.
public struct HistoryResult: Sendable, Equatable {
    public var benchmark: String
    public var metric: HistoryMetric
    /// The median per operation (wall, CPU) or the count per operation (instructions, allocations).
    public var value: Double
    /// The median's 95% interval; nil for exact counts.
    public var lower: Double?
    public var upper: Double?
    public var sampleCount: Int
    /// The benchmark's own regression threshold (percent), when it declares one.
    public var thresholdPercent: Double?
    /// "held", "did-not-hold" or "inconclusive" for a benchmark that tests a claim.
    public var claimVerdict: String?
    /// The GNU build ID of the executable that measured it: a level shift between runs with the
    /// same one is the machine's, not a commit's.
    public var executableBuildID: String?

    public init(
        benchmark: String, metric: HistoryMetric, value: Double, lower: Double? = nil, upper: Double? = nil,
        sampleCount: Int, thresholdPercent: Double? = nil, claimVerdict: String? = nil, executableBuildID: String? = nil
    ) {
        self.benchmark = benchmark
        self.metric = metric
        self.value = value
        self.lower = lower
        self.upper = upper
        self.sampleCount = sampleCount
        self.thresholdPercent = thresholdPercent
        self.claimVerdict = claimVerdict
        self.executableBuildID = executableBuildID
    }
}
