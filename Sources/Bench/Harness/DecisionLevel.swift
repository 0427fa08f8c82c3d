/// The confidence level at which an analysis decides a claim (held, did not hold).
///
/// A finished run decides at 95%. A run that stops sampling a benchmark once its answer is clear
/// looks at the answer several times, and each look is another chance for noise to look like an
/// answer; so a look before the last one (and a quick run, which is the default run's first look)
/// decides only at ``interim``, stricter, and a verdict that would need more samples than the look
/// had stays *inconclusive*. With at most five looks at 99% and a last one at 95%, the chance that
/// noise decides a claim somewhere along the way stays under 9%, against 5% for one look.
///
/// A task-local rather than a parameter: a suite's analysis (`BenchmarkSuite.analyze`) reads it
/// wherever it builds an interval, and the session sets it around the looks it takes.
public enum DecisionLevel {
    /// The level for the analysis running now.
    @TaskLocal public static var current: Double = final

    /// The level of a finished run's analysis.
    public static let final = 0.95
    /// The level of a look before the last one.
    public static let interim = 0.99

    /// "95%" or "99%": the level as the evidence prints it.
    public static var percent: String {
        let percent = current * 100
        return percent == percent.rounded() ? "\(Int(percent))%" : "\(percent)%"
    }
}
