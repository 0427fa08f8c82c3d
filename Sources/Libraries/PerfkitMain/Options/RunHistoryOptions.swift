import ArgumentParser
import History
import PerfReport

/// `--history PATH` (with `--machine`, `--branch`): `run` and `merge` file the report they wrote
/// in the history, as `history add` would.
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
}
