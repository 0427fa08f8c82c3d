import PerfkitHistory

/// A store's runs and the first-parent order to place them along: what `history changes`,
/// `history report` and `run --history`'s page read before analysing.
struct StoredHistory {
    var location: String
    var runs: [HistoryRun]
    /// The current repository's first-parent history; nil outside a repository (the analysis then
    /// places commits where they were when added).
    var order: CommitOrder?

    init(_ store: any ResultsStore) throws {
        location = store.location
        do {
            runs = try store.runs()
        } catch let error as StoreError {
            throw PerfkitError(error)
        }
        order = GitHistory.firstParentOrder()
    }
}
