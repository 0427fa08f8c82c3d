import Foundation
import PerfkitHistory
import PerfReport

/// Files reports into a store: `history add` and `run --history` share it, so a report is filed
/// the same way whichever way it arrives.
struct HistoryFiling {
    var machineName: String?
    var branch: String?

    /// The runs of `reports` (path, report), with each commit's place along the current
    /// repository's first-parent history when git knows it.
    func runs(of reports: [(path: String, report: Report)]) throws -> [HistoryRun] {
        let order = GitHistory.firstParentOrder()
        let head = GitHistory.head()
        let checkedOut = GitHistory.currentBranch()
        return try reports.map { item in
            var run = try HistoryRun(report: item.report, machineName: machineName)
            if let commit = run.commit {
                run.commitPosition = order?.position(of: commit) ?? GitHistory.depth(of: commit)
                run.branch = branch ?? (commit == head ? checkedOut : nil)
            } else {
                run.branch = branch
            }
            return run
        }
    }

    /// Adds the reports in one transaction and prints what happened to each.
    /// - Parameter quiet: print nothing (`bisect` files each probe as a side effect).
    @discardableResult
    func add(_ reports: [(path: String, report: Report)], to store: any ResultsStore, quiet: Bool = false) throws
        -> Int
    {
        let runs = try runs(of: reports)
        let outcomes: [StoreAddOutcome]
        do {
            outcomes = try store.add(runs)
        } catch let error as StoreError {
            throw PerfkitError(error)
        }
        let added = outcomes.filter(\.added).count
        guard !quiet else { return added }
        for ((path, _), (run, outcome)) in zip(reports, zip(runs, outcomes)) {
            if let when = outcome.alreadyAddedAt {
                print("history: \(path): already stored (added \(when.formatted(.iso8601))), not added again")
            } else {
                let commit = run.commit.map {
                    " at \(HistoryWording.short($0))\(run.dirty ? " (uncommitted changes)" : "")"
                }
                print(
                    "history: \(path): added\(commit ?? " (no git commit)"), \(Set(run.results.map(\.benchmark)).count) benchmarks, "
                        + run.machine.label)
            }
        }
        print("history: \(added) added, \(reports.count - added) already stored: \(store.location)")
        return added
    }
}
