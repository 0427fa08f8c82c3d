import ArgumentParser
import Foundation
import Harness
import PerfReport

/// `merge`: one report from the reports of a package's several benchmark executables, written,
/// compared and gated as `run` would. The `swift package perfkit` plugin ends with it.
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the reports of several benchmark executables into one report.",
        discussion: """
            The benchmarks of every report side by side (an id in two reports is an error). Writes \
            <output>/<timestamp>/ in the formats asked for, or exactly one JSON file with --into (a \
            merged baseline). With --baseline, compares the merged report as `run --baseline` does and \
            exits 2 on a regression. `swift package perfkit run` and `baseline update` end with it.
            """
    )

    @Argument(help: "The reports to merge (report.json files).")
    var reports: [String]

    @Option(help: "Write the merged report as JSON to exactly this file, instead of a timestamped directory.")
    var into: String?

    @OptionGroup var destination: ReportOutputOptions<JSONOnly>

    @OptionGroup var comparison: ComparisonOptions

    @OptionGroup var gate: GateOptions

    @OptionGroup var history: RunHistoryOptions

    func validate() throws {
        guard !reports.isEmpty else { throw ValidationError("name at least one report to merge") }
        try comparison.validate()
        if into != nil && gate.baseline != nil {
            throw ValidationError("--into writes a plain report; drop --baseline")
        }
        if gate.decideWithin != nil {
            throw ValidationError("--decide-within measures more processes, and merge measures nothing: drop it")
        }
    }

    func run() throws {
        let formats = destination.formats
        let loaded = try reports.map(loadReport)
        var merged: Report
        do {
            guard let union = try ReportUnion.union(loaded) else {
                throw PerfkitError(.invalidInput, "no reports to merge")
            }
            merged = union
        } catch let error as ReportUnion.DuplicateBenchmarks {
            throw PerfkitError(.invalidInput, "\(reports.joined(separator: ", ")): \(error.description)")
        }

        let historyStore = try history.open()
        if let into {
            try writeOutput(try ReportCoding.encode(merged), to: URL(fileURLWithPath: into))
            print("merged \(loaded.count) report(s), \(merged.benchmarks.count) benchmarks: \(into)")
            try history.file(merged, writtenAt: into, in: historyStore)
            return
        }

        let baseline = try gate.resolve(
            comparison, sharedWith: Set(merged.benchmarks.map(\.id)), timing: TimingConditions(of: merged))
        let writer = try ReportWriter.prepare(outputRoot: destination.output, timestamp: merged.createdAt)
        if let baseline {
            merged.comparison = baseline.gate.decide(baseline: baseline.report, current: merged).comparison
        }
        try ResultPresentation.publish(
            merged, writer: writer, formats: formats, baseline: baseline?.report, gate: gate, history: history,
            store: historyStore)
        try RegressionGate.Status(merged.comparison).exit()
    }
}
