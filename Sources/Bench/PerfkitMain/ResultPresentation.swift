import Foundation
import Harness
import PerfkitHistory
import PerfReport

/// What `run` and `merge` do once a report is made: write it, print it, file it in the history.
enum ResultPresentation {
    /// Writes `report` in `formats`, prints its findings, table and comparison (the summary file
    /// too), files it in `store` and writes the history page when asked for.
    static func publish(
        _ report: Report, writer: ReportWriter, formats: [OutputFormat], baseline: Report?, gate: GateOptions,
        history: RunHistoryOptions, store: (any ResultsStore)?
    ) throws {
        let written = try writer.write(
            report, formats: formats, baseline: baseline, linkingHistory: history.writesPage(formats))
        // The findings lead, as on the HTML page; the table of every benchmark follows.
        Swift.print(FindingsText.text(report), terminator: "")
        Swift.print(ResultTable.text(report), terminator: "")
        for metric in report.metrics where !metric.available {
            Swift.print("note: \(metric.metric.rawValue) not measured: \(metric.reason ?? "unavailable")")
        }
        if let reason = report.incompleteReason { Swift.print("warning: the report is incomplete: \(reason)") }
        if let result = report.comparison {
            let summary = GateSummary.markdown(
                result, title: "compared with \(gate.baseline ?? "baseline")",
                notes: ComparisonWording.roundNotes(Findings(report)))
            Swift.print(summary)
            try gate.writeSummary(summary)
        }
        for url in written { Swift.print("report: \(url.path)") }
        for url in try FunctionProfileFiles.write(report, baseline: baseline, into: writer.directory) {
            Swift.print("profile: \(url.path)")
        }
        try history.file(report, writtenAt: written.first?.path ?? writer.directory.path, in: store)
        if let page = try history.writePage(into: writer.directory, formats: formats, store: store) {
            Swift.print("report: \(page.path)")
        }
    }
}
