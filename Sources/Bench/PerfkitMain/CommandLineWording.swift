import Harness

/// The command line's words for what Harness reports without naming a flag: Harness says what is
/// missing or wrong, and these say which of perfkit's options or commands to use about it.
extension Remedies {
    static let commandLine = Remedies(
        measure: [.allocations: "use --allocations", .instructions: "use --instructions"],
        refreshBaseline: "refresh it with `perfkit baseline update`")
}

extension BenchmarkSelection.InvalidFilter {
    /// The error as `--filter` gave it, e.g. "--filter 'x': matches no benchmark (the `list`
    /// command shows them all)".
    var commandLineDescription: String {
        switch problem {
        case .notARegularExpression: "--filter '\(filter)': not a valid regular expression"
        case .matchesNoBenchmark: "--filter '\(filter)': matches no benchmark (the `list` command shows them all)"
        }
    }
}
