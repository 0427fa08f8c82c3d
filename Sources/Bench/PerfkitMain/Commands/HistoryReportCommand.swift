import ArgumentParser
import Foundation
import HTMLReport
import PerfkitHistory

struct HistoryReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write the history as a self-contained HTML page: a chart per series over commits.",
        discussion: """
            One chart per benchmark, metric and machine along the current repository's first-parent history, \
            each change point marked at its commit with the levels before and after it, as `history changes` \
            finds them (the same options); series with a regression first. The page loads nothing from \
            anywhere. It is written whole or not at all.
            """
    )

    static let defaultOutput = "Reports/\(HistoryAnchors.pageFileName)"

    @OptionGroup var store: HistoryStoreOption

    @Option(name: [.short, .customLong("output")], help: "Where to write the page.")
    var output = HistoryReportCommand.defaultOutput

    @OptionGroup var selection: HistoryAnalysisOptions

    func run() throws {
        let history = try StoredHistory(store.open(create: false))
        let outcome = try HistoryPageWriter.write(
            history, analysis: selection.analysis, to: URL(fileURLWithPath: output))
        print(
            "history: \(history.location): "
                + HistoryWording.searched(runs: history.runs.count, series: outcome.seriesExamined)
                + (history.order == nil ? " (\(HistoryWording.unordered))" : "")
                + ", \(HistoryWording.changeCount(outcome.changes.count))")
        print("wrote \(output)")
    }
}
