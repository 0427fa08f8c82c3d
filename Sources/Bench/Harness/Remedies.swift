import PerfReport

/// What the program that drives Harness tells its user to do about something missing, in its own
/// words: a command line names its flags ("use --allocations"), another program its settings.
/// Harness says what is missing and why, and adds these; it names no flag of any program itself.
public struct Remedies: Sendable {
    /// How to measure a metric that a run left out, e.g. `[.allocations: "use --allocations"]`.
    public var measure: [Metric: String]
    /// How to bring a committed baseline up to date with the benchmarks there are now.
    public var refreshBaseline: String?

    public init(measure: [Metric: String] = [:], refreshBaseline: String? = nil) {
        self.measure = measure
        self.refreshBaseline = refreshBaseline
    }

    /// `reason`, followed by the remedy in parentheses when there is one.
    static func reason(_ reason: String, remedy: String?) -> String {
        remedy.map { "\(reason) (\($0))" } ?? reason
    }
}
