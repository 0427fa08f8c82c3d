import ArgumentParser
import Foundation
import Harness
import PerfReport

/// `perfkit report REPORT.json [--baseline BASE.json] -o report.html`: renders a saved report as
/// one self-contained HTML page without running anything.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Render a saved JSON report (optionally compared with a baseline) as a self-contained HTML page."
    )

    @Argument(help: "The report to render (JSON written by `run`).")
    var report: String

    @Option(name: .long, help: "A baseline report: the page shows the comparison and overlays both distributions.")
    var baseline: String?

    @Option(name: [.short, .customLong("output")], help: "Where to write the HTML page.")
    var output: String = "report.html"

    @OptionGroup var comparison: ComparisonOptions

    func run() throws {
        let current: Report
        let base: Report?
        do {
            current = try ReportCoding.load(from: URL(fileURLWithPath: report))
            base = try baseline.map { try ReportCoding.load(from: URL(fileURLWithPath: $0)) }
        } catch let error as ReportCoding.LoadError {
            throw PerfkitError(error)
        }
        // A saved `run --baseline` report already carries its comparison; otherwise compare now,
        // with the same rules as `perfkit compare`.
        var rendered = current
        if let base, rendered.comparison == nil {
            rendered.comparison = comparison.gate().compare(baseline: base, current: current)
        }
        try writeOutput(try OutputFormat.html.render(rendered, baseline: base), to: URL(fileURLWithPath: output))
        printError("wrote \(output)\n")
    }
}
