import Foundation
import PerfReport

/// How the history's findings read on the terminal; the HTML page uses the same sentences.
public enum HistoryWording {
    /// A commit hash as people quote it.
    public static func short(_ commit: String) -> String { String(commit.prefix(10)) }

    /// "regression  Probe/startup/mark-x64  instructions  +12.4 % at 921c6c6a12".
    public static func headline(_ change: HistoryChange) -> String {
        let kind = change.isMachineShift ? "machine    " : change.isRegression ? "regression " : "improvement"
        return "\(kind) \(change.benchmark)  "
            + "\(change.metric.reportMetric.displayName)  \(shift(change)) at \(short(change.commit))"
    }

    /// "regression", "improvement" or "machine shift".
    public static func kind(_ change: HistoryChange) -> String {
        change.isMachineShift ? "machine shift" : change.isRegression ? "regression" : "improvement"
    }

    /// Why a shift of the machine is not a commit's.
    public static func executable(_ change: HistoryChange) -> String? {
        change.isMachineShift
            ? "the same executable on both sides (one build ID): the machine moved, not the code" : nil
    }

    /// "1 shift of the machine (…)": level shifts between runs of one executable.
    public static func machineShiftCount(_ count: Int) -> String {
        "\(count) shift\(count == 1 ? "" : "s") of the machine, not of a commit "
            + "(the same executable measured at two levels; never a regression)"
    }

    /// How far the level moved: "+12.4 %".
    public static func shift(_ change: HistoryChange) -> String {
        UnitFormatting.change(ratio: change.before.mean == 0 ? .nan : change.after.mean / change.before.mean)
    }

    /// Where the change starts: the commit, or the range when commits between were not measured.
    public static func place(_ change: HistoryChange) -> String {
        switch change.unmeasuredCommits {
        case 0?: "first measured at \(short(change.commit)), right after \(short(change.previousCommit))"
        case let n?:
            "between \(short(change.previousCommit)) (excluded) and \(short(change.commit)): "
                + "\(n) commit\(n == 1 ? "" : "s") between were not measured"
        case nil: "first measured at \(short(change.commit)), after \(short(change.previousCommit))"
        }
    }

    /// "4129 instr [4120–4138] over 5 runs → 4641 instr [4630–4650] over 3 runs, p < 0.001".
    public static func levels(_ change: HistoryChange) -> String {
        func level(_ level: HistoryChange.Level) -> String {
            let format = change.metric.reportMetric.formatted
            let interval =
                level.lower == level.upper ? "" : " [\(format(level.lower))–\(format(level.upper))]"
            return "\(format(level.mean))\(interval) over \(level.runs) run\(level.runs == 1 ? "" : "s")"
        }
        return "\(level(change.before)) → \(level(change.after)), \(UnitFormatting.pValue(change.pValue))"
    }

    /// For a time: whether the instruction count explains it.
    public static func instructions(_ change: HistoryChange) -> String? {
        switch change.instructions {
        case .moved(let shift)?: "instructions moved \(UnitFormatting.change(ratio: 1 + shift)) with it"
        case .flat(let shift)?:
            "instructions flat (\(UnitFormatting.change(ratio: 1 + shift))): "
                + "probably a layout, machine or toolchain effect, not the code"
        case .notMeasured?: "instructions not counted on both sides (run --instructions tells code from layout)"
        case nil: nil
        }
    }

    /// "40 runs, 12 series searched".
    public static func searched(runs: Int, series: Int) -> String { "\(runs) runs, \(series) series searched" }

    /// Why the commits' order may not be the repository's.
    public static let unordered = "no git repository here: commits placed as when they were added"

    /// "no change points", "1 change point", "3 change points".
    public static func changeCount(_ count: Int) -> String {
        count == 0 ? "no change points" : "\(count) change point\(count == 1 ? "" : "s")"
    }

    /// What one series holds: "12 runs of 10 commits, 3a4b5c6d7e to 9f8e7d6c5b".
    public static func span(runs: Int, commits: Int, first: String, last: String) -> String {
        let extent = commits == 1 ? "of \(short(first))" : "of \(commits) commits, \(short(first)) to \(short(last))"
        return "\(runs) run\(runs == 1 ? "" : "s") \(extent)"
            + (runs < 2 ? " (a series needs two runs to be searched)" : "")
    }

    /// A chart that shows only the newest runs of a long series.
    public static func drawn(shown: Int, of total: Int) -> String {
        "the newest \(shown) of \(total) runs drawn; the search used all of them"
    }

    /// A change whose commit is older than the runs drawn.
    public static let beforeDrawnRuns = "before the runs drawn"

    /// Why runs were left out.
    public static func skipped(_ reason: ChangeAnalysis.SkipReason, count: Int) -> String {
        let runs = "\(count) run\(count == 1 ? "" : "s")"
        return switch reason {
        case .dirty: "\(runs) measured with uncommitted changes left out"
        case .noCommit: "\(runs) without a git commit left out"
        case .offHistory: "\(runs) of commits not on the first-parent history left out"
        case .otherMachine: "\(runs) of other machines left out"
        }
    }
}
