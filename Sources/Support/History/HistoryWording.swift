import Foundation
import PerfReport

/// How the history's findings read on the terminal; the HTML page uses the same sentences.
public enum HistoryWording {
    /// A commit hash as people quote it.
    public static func short(_ commit: String) -> String { String(commit.prefix(10)) }

    /// "regression  Probe/startup/mark-x64  instructions  +12.4 % at 921c6c6a12".
    public static func headline(_ change: HistoryChange) -> String {
        let ratio = change.before.mean == 0 ? .nan : change.after.mean / change.before.mean
        return "\(change.isRegression ? "regression " : "improvement") \(change.benchmark)  "
            + "\(change.metric.reportMetric.displayName)  \(UnitFormatting.change(ratio: ratio)) at \(short(change.commit))"
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
