import ArgumentParser
import Foundation
import HTMLReport
import PerfkitHistory
import PerfReport

/// `--history PATH` (with `--machine`, `--branch`): `run` and `merge` file the report they wrote
/// in the history, as `history add` would; with the html format, they also write the history page
/// beside the report, which links each benchmark to its trend there.
struct RunHistoryOptions: ParsableArguments {
    @Option(
        name: .customLong("history"),
        help: ArgumentHelp(
            "Also file the report in this history store (e.g. \(HistoryStoreOption.defaultPath)).",
            valueName: "store"))
    var store: String?

    @OptionGroup var filing: HistoryFilingOptions

    func validate() throws {
        if store == nil && (filing.machine != nil || filing.branch != nil) {
            throw ValidationError("--machine and --branch name how a run is filed: give --history too")
        }
    }

    /// Opened before measuring, so that a store that cannot be used fails the command in a second.
    func open() throws -> (any ResultsStore)? {
        try store.map { try HistoryStoreOption.open($0, create: true) }
    }

    /// Files the written report; an interrupted run's report is not filed (it is partial).
    func file(_ report: Report, writtenAt path: String, in store: (any ResultsStore)?) throws {
        guard let store else { return }
        guard report.complete else {
            print("history: not filed: the run is incomplete (add it with perfkit history add \(path) if it should be)")
            return
        }
        try filing.filing.add([(path: path, report: report)], to: store)
    }

    /// Whether the history page goes beside the report: with a store and an HTML report to link from.
    func writesPage(_ formats: [OutputFormat]) -> Bool { store != nil && formats.contains(.html) }

    /// Writes the history page into the report directory, after the run is filed (so its trend
    /// includes it); every series as `history report` draws it by default. Returns its place.
    func writePage(into directory: URL, formats: [OutputFormat], store: (any ResultsStore)?) throws -> URL? {
        guard let store, writesPage(formats) else { return nil }
        let url = directory.appendingPathComponent(HistoryAnchors.pageFileName)
        try HistoryPageWriter.write(StoredHistory(store), analysis: ChangeAnalysis(), to: url)
        return url
    }
}
