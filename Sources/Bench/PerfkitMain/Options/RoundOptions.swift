import ArgumentParser
import Foundation

/// What one interleaved round of `ci` measures on each side: `run --quick` with these, in either
/// build, so only options every build's `run` knows (the build at REV may be older than this one).
struct RoundOptions: ParsableArguments {
    @Option(help: "Samples per benchmark in each round.")
    var samples = 8

    @Option(name: .customLong("time-budget"), help: "Seconds of measurement per benchmark in each round.")
    var timeBudget = 0.1

    func validate() throws {
        guard samples >= 2 else { throw ValidationError("--samples must be at least 2") }
        guard timeBudget > 0, timeBudget.isFinite else { throw ValidationError("--time-budget must be positive") }
    }

    /// The command line of one round, its JSON report written under `output`.
    func runArguments(filter: String?, output: URL) -> [String] {
        ["run", "--quick", "--samples", "\(samples)", "--time-budget", "\(timeBudget)", "--output", output.path]
            + (filter.map { ["--filter", $0] } ?? [])
    }
}
