import ArgumentParser
import Foundation
import HTMLReport
import Harness
import PerfReport

/// Every format perfkit writes a report in, each with its file name and its writer: the one list
/// the commands read (``ComparisonFormat`` beside it lists a comparison's own). The writers live
/// with what they know (JSON in PerfReport, the page in HTMLReport, the text and markdown in
/// Harness/Output); this module is where they are all visible.
public enum OutputFormat: String, CaseIterable, Sendable {
    case json
    case html
    case googleBenchmark = "google-benchmark"
    case markdown

    /// The file the format is written to in a report directory.
    var fileName: String {
        switch self {
        case .json: "report.json"
        case .html: "report.html"
        case .googleBenchmark: "google-benchmark.json"
        case .markdown: "report.md"
        }
    }

    /// The formats' names, as a list for help and errors: "json, html, google-benchmark, markdown".
    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// Parses `json,html,…`; the JSON report is always written, whatever the list says.
    public static func parseList(_ text: String) throws -> [OutputFormat] {
        var formats: [OutputFormat] = [.json]
        for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            guard let format = OutputFormat(rawValue: name) else {
                throw ValidationError("--format: unknown format '\(name)' (known: \(names))")
            }
            if !formats.contains(format) { formats.append(format) }
        }
        return formats
    }

    /// The report in this format; `baseline` is the report its comparison was made against, if any.
    /// `linkingHistory`: the history page is written beside it (the HTML page links each benchmark's
    /// trend there).
    func render(_ report: Report, baseline: Report?, linkingHistory: Bool = false) throws -> Data {
        switch self {
        case .json:
            return try ReportCoding.encode(report)
        case .html:
            return Data(HTMLReportRenderer.render(report, baseline: baseline, linkingHistory: linkingHistory).utf8)
        case .googleBenchmark:
            return try GoogleBenchmarkFormat.encode(report, executable: CommandLine.arguments.first ?? "perfkit")
        case .markdown:
            var text = ResultTable.markdown(report)
            if let comparison = report.comparison { text += "\n" + ComparisonFormat.markdown.render(comparison) }
            return Data(text.utf8)
        }
    }
}

/// The formats a comparison on its own is shown in (`compare --format`): text for a terminal,
/// markdown for a pull-request comment.
enum ComparisonFormat: String, CaseIterable, ExpressibleByArgument {
    case text
    case markdown

    func render(_ comparison: Comparison) -> String {
        switch self {
        case .text: ComparisonText.render(comparison)
        case .markdown: MarkdownSummary.comparison(comparison)
        }
    }
}
