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
    /// What limits every verdict of the comparison, e.g. a side measured in one process; nil when
    /// nothing does, and in reports of older perfkits.
    public var caveats: [Caveat]? = nil
    /// What the gate could not add to its regressions, a line each (e.g. why they carry no time
    /// profile); nil when nothing.
    public var notes: [String]? = nil

    /// What limits a whole comparison; ``ComparisonWording/caveat(_:)`` words it.
    public enum Caveat: Codable, Sendable, Equatable {
        /// These sides were measured in one process, so how far apart processes lie (hash seed,
        /// layout, the machine's minute) cannot be told from a change.
        case singleProcess(sides: [ComparisonReason.Side])
    }

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
    /// Why the verdict, as data; the one source of the words and saved in the report. An entry of
    /// a schema-1 report, which saved only the words, has ``ComparisonReason/Finding/worded(_:)``.
    public var reason: ComparisonReason
    /// The functions that grew most, for a count regression whose both sides carry a
    /// ``FunctionProfile``; nil otherwise.
    public var functionDifferential: FunctionDifferential? = nil
    /// The functions whose share of the sampled CPU time grew, for a time regression whose both
    /// sides carry a time profile (``FunctionDifferential/isSampled``); nil otherwise.
    public var timeDifferential: FunctionDifferential? = nil
    /// The verdict in words, with the numbers: ``ComparisonWording``'s words for ``reason`` (also
    /// written to the report, for readers of its JSON).
    public var explanation: String {
        ComparisonWording.explanation(reason, metric: metric, thresholdPercent: thresholdPercent)
    }

    private enum CodingKeys: String, CodingKey {
        case id, metric, baselineMedian, currentMedian, ratio, ratioConfidenceInterval, pValue, adjustedPValue
        case thresholdPercent, verdict, reason, explanation, functionDifferential, timeDifferential
    }

    /// An entry with the reason for its verdict; its figures (medians, ratio, p-values) are set as
    /// they are known.
    public init(id: String, metric: Metric, thresholdPercent: Double, verdict: Verdict, reason: ComparisonReason) {
        self.id = id
        self.metric = metric
        self.thresholdPercent = thresholdPercent
        self.verdict = verdict
        self.reason = reason
    }

    /// An entry known only by its words, as a report of schema version 1 saved it.
    public init(id: String, metric: Metric, thresholdPercent: Double, verdict: Verdict, explanation: String) {
        self.init(
            id: id, metric: metric, thresholdPercent: thresholdPercent, verdict: verdict,
            reason: ComparisonReason(.worded(explanation)))
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        metric = try container.decode(Metric.self, forKey: .metric)
        baselineMedian = try container.decodeIfPresent(Double.self, forKey: .baselineMedian)
        currentMedian = try container.decodeIfPresent(Double.self, forKey: .currentMedian)
        ratio = try container.decodeIfPresent(Double.self, forKey: .ratio)
        ratioConfidenceInterval = try container.decodeIfPresent(
            ConfidenceInterval.self, forKey: .ratioConfidenceInterval)
        pValue = try container.decodeIfPresent(Double.self, forKey: .pValue)
        adjustedPValue = try container.decodeIfPresent(Double.self, forKey: .adjustedPValue)
        thresholdPercent = try container.decode(Double.self, forKey: .thresholdPercent)
        verdict = try container.decode(Verdict.self, forKey: .verdict)
        // Schema 1 saved the words only.
        reason =
            try container.decodeIfPresent(ComparisonReason.self, forKey: .reason)
            ?? ComparisonReason(.worded(container.decode(String.self, forKey: .explanation)))
        functionDifferential = try container.decodeIfPresent(FunctionDifferential.self, forKey: .functionDifferential)
        timeDifferential = try container.decodeIfPresent(FunctionDifferential.self, forKey: .timeDifferential)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(metric, forKey: .metric)
        try container.encodeIfPresent(baselineMedian, forKey: .baselineMedian)
        try container.encodeIfPresent(currentMedian, forKey: .currentMedian)
        try container.encodeIfPresent(ratio, forKey: .ratio)
        try container.encodeIfPresent(ratioConfidenceInterval, forKey: .ratioConfidenceInterval)
        try container.encodeIfPresent(pValue, forKey: .pValue)
        try container.encodeIfPresent(adjustedPValue, forKey: .adjustedPValue)
        try container.encode(thresholdPercent, forKey: .thresholdPercent)
        try container.encode(verdict, forKey: .verdict)
        try container.encode(reason, forKey: .reason)
        try container.encode(explanation, forKey: .explanation)
        try container.encodeIfPresent(functionDifferential, forKey: .functionDifferential)
        try container.encodeIfPresent(timeDifferential, forKey: .timeDifferential)
    }

    /// Records what looking at the verdict again found, and the verdict that leaves when it changes it.
    public mutating func review(_ review: ComparisonReason.Review, verdict: Verdict? = nil) {
        if let verdict { self.verdict = verdict }
        reason.reviews.append(review)
    }
}
