import Foundation
import PerfReport

/// Plain-text comparison for a terminal: one line per benchmark, regressions first.
public enum ComparisonText {
    public static func render(_ comparison: Comparison) -> String {
        var lines: [String] = []
        let entries = MarkdownSummary.sortedForReview(comparison.entries)
        let width = entries.map(\.id.count).max() ?? 0
        for entry in entries {
            let id = entry.id.padding(toLength: width, withPad: " ", startingAt: 0)
            let verdict = entry.verdict.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)
            lines.append("\(verdict)  \(id)  \(entry.explanation)")
            for differential in [entry.functionDifferential, entry.timeDifferential].compactMap({ $0 }) {
                let (heading, grown) = ComparisonWording.functionDifferential(differential)
                lines.append("              " + heading)
                for (change, line) in zip(differential.grown, grown) {
                    lines.append("                \(line)")
                    lines += ComparisonWording.compiledCode(of: change).map { "                  \($0)" }
                }
                lines += (differential.compiledCodeNotes ?? []).map { "                \($0)" }
            }
        }
        var verdicts: [ComparisonEntry.Verdict] = [.regressed, .improved, .noChange, .withinNoise]
        if comparison.count(.inconclusive) > 0 { verdicts.append(.inconclusive) }
        lines.append(verdicts.map { "\(comparison.count($0)) \($0.displayName)" }.joined(separator: ", "))
        return lines.joined(separator: "\n") + "\n"
    }
}
