import ArgumentParser
import PerfkitHistory

/// What to search and how (`--filter`, `--metric`, `--min-shift`, `--machine`): `history changes`
/// and `history report` share them, so the page shows what the terminal lists.
struct HistoryAnalysisOptions: ParsableArguments {
    @Option(help: "Only benchmarks whose id matches this regular expression.")
    var filter: String?

    @Option(
        parsing: .upToNextOption,
        help: "The metrics to search: wall, cpu, instructions, allocations (default: all that were measured).")
    var metric: [HistoryMetric] = []

    @Option(help: "The smallest shift reported, in percent, unless a benchmark declares its own threshold.")
    var minShift: Double = 2

    @Option(help: "Only runs of this machine: its --machine name, or its label as `history list` shows it.")
    var machine: String?

    func validate() throws {
        guard minShift >= 0, minShift.isFinite else { throw ValidationError("--min-shift must be a percentage ≥ 0") }
        if let filter, (try? Regex(filter)) == nil {
            throw ValidationError("--filter '\(filter)': not a valid regular expression")
        }
    }

    var analysis: ChangeAnalysis {
        get throws {
            ChangeAnalysis(
                filter: try filter.map { try Regex($0) },
                metrics: metric.isEmpty ? Set(HistoryMetric.allCases) : Set(metric),
                minRelativeShift: minShift / 100, machine: machine)
        }
    }
}
