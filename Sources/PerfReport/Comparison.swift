import Foundation

/// The outcome of comparing a run with a baseline.
public struct Comparison: Codable, Sendable, Equatable {
    public var baselineCreatedAt: Date?
    public var baselineEnvironment: Environment?
    /// Default regression threshold in percent (a benchmark may declare its own).
    public var thresholdPercent: Double
    /// Significance level of the test (before multiple-comparison control).
    public var alpha: Double
    /// How p-values were adjusted for testing many benchmarks at once, e.g. "holm".
    public var multipleComparisonControl: String
    public var entries: [ComparisonEntry]
    /// Benchmarks left out of the verdicts, each with the reason (gated metric missing on a side, …).
    public var skipped: [String]? = nil

    public init(
        baselineCreatedAt: Date?, baselineEnvironment: Environment?, thresholdPercent: Double, alpha: Double,
        multipleComparisonControl: String, entries: [ComparisonEntry]
    ) {
        self.baselineCreatedAt = baselineCreatedAt
        self.baselineEnvironment = baselineEnvironment
        self.thresholdPercent = thresholdPercent
        self.alpha = alpha
        self.multipleComparisonControl = multipleComparisonControl
        self.entries = entries
    }

    public func count(_ verdict: ComparisonEntry.Verdict) -> Int { entries.filter { $0.verdict == verdict }.count }
    public var hasRegression: Bool { entries.contains { $0.verdict == .regressed } }
    /// No regression, but at least one benchmark could not be judged (``ComparisonEntry/Verdict/inconclusive``).
    public var isInconclusive: Bool { !hasRegression && entries.contains { $0.verdict == .inconclusive } }
}

public struct ComparisonEntry: Codable, Sendable, Equatable {
    public enum Verdict: String, Codable, Sendable {
        case regressed, improved
        case noChange = "no-change"
        case withinNoise = "within-noise"
        /// Present on only one side.
        case added, removed
        /// The time difference cannot be judged: the machine was busy on one side (waiting for a
        /// CPU), and the time that does not count waiting did not decide it. Worth measuring again.
        case inconclusive
    }
    public var id: String
    /// The metric the verdict is based on.
    public var metric: Metric
    public var baselineMedian: Double?
    public var currentMedian: Double?
    /// current / baseline medians; > 1 is slower.
    public var ratio: Double?
    public var ratioConfidenceInterval: ConfidenceInterval?
    /// Two-sided p-value of the Mann–Whitney U test, before adjustment.
    public var pValue: Double?
    public var adjustedPValue: Double?
    public var thresholdPercent: Double
    public var verdict: Verdict
    /// The verdict in words, with the numbers.
    public var explanation: String

    public init(
        id: String, metric: Metric, baselineMedian: Double?, currentMedian: Double?, ratio: Double?,
        ratioConfidenceInterval: ConfidenceInterval?, pValue: Double?, adjustedPValue: Double?,
        thresholdPercent: Double, verdict: Verdict, explanation: String
    ) {
        self.id = id
        self.metric = metric
        self.baselineMedian = baselineMedian
        self.currentMedian = currentMedian
        self.ratio = ratio
        self.ratioConfidenceInterval = ratioConfidenceInterval
        self.pValue = pValue
        self.adjustedPValue = adjustedPValue
        self.thresholdPercent = thresholdPercent
        self.verdict = verdict
        self.explanation = explanation
    }
}
