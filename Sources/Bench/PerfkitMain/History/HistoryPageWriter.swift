import Foundation
import HTMLReport
import PerfkitHistory
import PerfReport

/// Analyses a store's runs and writes the history page (`history report`, `run --history` with
/// the html format): the whole page or, on any error, nothing.
enum HistoryPageWriter {
    /// - Returns: what the analysis found, for the command's summary line.
    @discardableResult
    static func write(_ history: StoredHistory, analysis: ChangeAnalysis, to url: URL) throws
        -> ChangeAnalysis.Outcome
    {
        let outcome = analysis.analyse(history.runs, order: history.order)
        let page = HistoryPage(
            store: history.location, generatedAt: Date(), runs: history.runs,
            series: analysis.series(history.runs, order: history.order), outcome: outcome,
            ordered: history.order != nil)
        let directory = url.deletingLastPathComponent().path
        if let problem = ReportWriter.makeDirectories(directory) {
            throw PerfkitError(.cannotWrite, "\(url.path): cannot create \(directory): \(problem)")
        }
        try writeOutput(Data(page.render().utf8), to: url)
        return outcome
    }
}
