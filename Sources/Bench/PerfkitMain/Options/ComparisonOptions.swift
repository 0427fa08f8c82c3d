import ArgumentParser
import Harness
import PerfReport

/// The knobs of a comparison, shared by `run --baseline` and `compare`.
struct ComparisonOptions: ParsableArguments {
    @Option(help: "Smallest change in percent that counts as a regression or improvement.")
    var threshold: Double = 5

    @Option(help: "Significance level of the Mann-Whitney U test (after Holm correction).")
    var alpha: Double = 0.05

    func validate() throws {
        guard threshold.isFinite, threshold >= 0 else { throw ValidationError("--threshold must be a percentage ≥ 0") }
        guard alpha > 0, alpha < 1 else { throw ValidationError("--alpha must be between 0 and 1") }
    }

    var comparator: Comparator { Comparator(thresholdPercent: threshold, alpha: alpha) }

    /// The gate on `metric` (wall time unless a command measures another) with these knobs.
    func gate(on metric: Metric = .wallTime) -> RegressionGate {
        RegressionGate(comparator: comparator, basis: .time(metric))
    }
}
