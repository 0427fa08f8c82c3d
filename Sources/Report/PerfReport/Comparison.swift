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
    /// The verdict in words, with the numbers: ``ComparisonWording``'s words for ``reason`` when
    /// there is one, or as the report that held the entry said it.
    public private(set) var explanation: String
    /// Why the verdict, as data. Not stored in a report (its `explanation` is), so an entry read
    /// from one has none.
    public var reason: ComparisonReason? {
        didSet {
            if let reason {
                explanation = ComparisonWording.explanation(reason, metric: metric, thresholdPercent: thresholdPercent)
            }
        }
    }

    private enum CodingKeys: String, CodingKey {
        case id, metric, baselineMedian, currentMedian, ratio, ratioConfidenceInterval, pValue, adjustedPValue
        case thresholdPercent, verdict, explanation
    }

    /// An entry with the words for its verdict; its figures (medians, ratio, p-values) are set
    /// as they are known.
    public init(id: String, metric: Metric, thresholdPercent: Double, verdict: Verdict, explanation: String) {
        self.id = id
        self.metric = metric
        self.thresholdPercent = thresholdPercent
        self.verdict = verdict
        self.explanation = explanation
    }

    /// An entry with the reason for its verdict, worded by ``ComparisonWording``.
    public init(id: String, metric: Metric, thresholdPercent: Double, verdict: Verdict, reason: ComparisonReason) {
        self.init(
            id: id, metric: metric, thresholdPercent: thresholdPercent, verdict: verdict,
            explanation: ComparisonWording.explanation(reason, metric: metric, thresholdPercent: thresholdPercent))
        self.reason = reason
    }

    /// Records what looking at the verdict again found, and the verdict that leaves when it changes it.
    public mutating func review(_ review: ComparisonReason.Review, verdict: Verdict? = nil) {
        if let verdict { self.verdict = verdict }
        if reason != nil {
            reason?.reviews.append(review)
        } else {
            explanation = ComparisonWording.applying(review, to: explanation)
        }
    }
}
