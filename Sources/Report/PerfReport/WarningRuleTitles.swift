extension Warning {
    /// A short name for the kind of warning a rule raises, for lists that group benchmarks by it
    /// ("12 benchmarks: spread above 5% CV"). Rules this table does not know show as themselves, so
    /// a suite's own rules still group.
    public static func title(ofRule rule: String) -> String {
        ruleTitles[rule] ?? rule
    }

    /// What to do about a rule's benchmarks, for rules whose benchmarks a summary names: nil for
    /// the others.
    public static func remedy(ofRule rule: String) -> String? { ruleRemedies[rule] }

    static let ruleRemedies: [String: String] = [
        // #61: against such a baseline a gate's interval stays wider than the threshold however many
        // candidate processes it adds: it cannot narrow below t·s/√n of the baseline's n processes
        // (docs/regression-gate.md, "More processes for what the first look cannot decide").
        "process-spread-above-threshold":
            "a wall-time gate on them needs a baseline of more processes (run --processes 20), the baseline's "
            + "build beside it (--baseline-binary), both builds interleaved (perfkit ci), or instruction counts "
            + "(--gate-metric instructions)"
    ]

    static let ruleTitles: [String: String] = [
        "too-few-samples": "too few samples to judge the spread",
        "median-not-positive": "too small to measure",
        "cv-above-5-percent": "spread above 5% CV",
        "ci-wider-than-10-percent-of-median": "median's 95% interval wider than 10%",
        "severe-outliers": "severe outliers (beyond 3 × IQR)",
        "time-budget-limited-samples": "fewer samples than asked (time budget)",
        "slower-than-memset-ceiling": "slower than 1.25× memset of the output",
        "ceiling-not-measured": "memory ceiling not measured in the same run",
        "process-spread-above-threshold": "medians differ between processes by more than the threshold",
    ]
}
