import ArgumentParser
import Foundation
import PerfkitHistory
import PerfReport

struct HistoryChangesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes",
        abstract: "Find the commits where a benchmark's level shifted.",
        discussion: """
            Each series (benchmark × metric × machine) is followed along the current repository's \
            first-parent history and searched with E-Divisive means as Apache Otava does: split where the \
            energy statistic peaks, then keep a change point only when a t-test between the levels beside it \
            gives p < 0.001 and the level moved by at least --min-shift (or the benchmark's own threshold). \
            Runs of one commit stay on one level. A time that shifted while the instruction count stayed flat \
            is flagged as a probable layout or machine effect. \
            Exit codes: 0, or 2 when --since is given and a regression starts after that revision; 1 on error.
            """
    )

    @OptionGroup var store: HistoryStoreOption

    @OptionGroup var selection: HistoryAnalysisOptions

    @Option(help: "Exit 2 when a regression starts after this revision (a commit, tag or branch).")
    var since: String?

    @Option(help: "Output format: text, or json for machines.")
    var format: HistoryOutputFormat = .text

    enum HistoryOutputFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    func run() throws {
        let history = try StoredHistory(store.open(create: false))
        let (runs, order) = (history.runs, history.order)
        var sincePosition: Int?
        if let since {
            guard let order else {
                throw PerfkitError(
                    .invalidInput, "--since \(since): needs a git repository (the current directory is not in one)")
            }
            guard let commit = GitHistory.resolve(since), let position = order.position(of: commit) else {
                throw PerfkitError(
                    .invalidInput, "--since \(since): not a commit on the current branch's first-parent history")
            }
            sincePosition = position
        }
        let outcome = try selection.analysis.analyse(runs, order: order)
        let newRegressions = outcome.changes.filter { change in
            guard let sincePosition, change.isRegression, !change.isMachineShift else { return false }
            return (change.commitPosition ?? 0) > sincePosition
        }
        switch format {
        case .text: print(text(outcome, runs: runs, store: history.location, ordered: order != nil), terminator: "")
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let document = ChangesDocument(
                store: history.location, runs: runs.count, seriesExamined: outcome.seriesExamined,
                skipped: Dictionary(uniqueKeysWithValues: outcome.skipped.map { ($0.key.rawValue, $0.value) }),
                changes: outcome.changes.filter { !$0.isMachineShift },
                machineShifts: outcome.changes.filter(\.isMachineShift),
                regressionsSince: sincePosition.map { _ in newRegressions.count })
            print(String(decoding: try encoder.encode(document), as: UTF8.self))
        }
        if !newRegressions.isEmpty {
            if format == .text {
                print("\(newRegressions.count) regression\(newRegressions.count == 1 ? "" : "s") after \(since ?? "")")
            }
            throw ExitCode(2)
        }
    }

    /// The JSON form of the findings.
    struct ChangesDocument: Encodable {
        var store: String
        var runs: Int
        var seriesExamined: Int
        var skipped: [String: Int]
        var changes: [HistoryChange]
        /// Level shifts between runs of one executable: the machine's, not a commit's.
        var machineShifts: [HistoryChange]
        /// With --since: how many regressions start after it.
        var regressionsSince: Int?
    }

    func text(_ outcome: ChangeAnalysis.Outcome, runs: [HistoryRun], store: String, ordered: Bool) -> String {
        var lines = [
            "history: \(store): \(HistoryWording.searched(runs: runs.count, series: outcome.seriesExamined))"
                + (ordered ? "" : " (\(HistoryWording.unordered))")
        ]
        for reason in ChangeAnalysis.SkipReason.allCases {
            if let count = outcome.skipped[reason] {
                lines.append("note: " + HistoryWording.skipped(reason, count: count))
            }
        }
        let commitChanges = outcome.changes.filter { !$0.isMachineShift }
        let machineShifts = outcome.changes.filter(\.isMachineShift)
        func describe(_ change: HistoryChange) {
            lines.append(HistoryWording.headline(change))
            lines.append("    " + HistoryWording.place(change))
            lines.append("    " + HistoryWording.levels(change) + " — \(change.machine)")
            if let executable = HistoryWording.executable(change) { lines.append("    " + executable) }
            if let instructions = HistoryWording.instructions(change) { lines.append("    " + instructions) }
        }
        lines.append(HistoryWording.changeCount(commitChanges.count) + (commitChanges.isEmpty ? "" : ":"))
        commitChanges.forEach(describe)
        if !machineShifts.isEmpty {
            lines.append(HistoryWording.machineShiftCount(machineShifts.count) + ":")
            machineShifts.forEach(describe)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension HistoryMetric: ExpressibleByArgument {}
