import Foundation
import PerfReport

/// Markdown for a pull-request comment: the verdict counts, then a table with regressions first.
public enum MarkdownSummary {
    public static func comparison(_ comparison: Comparison, title: String = "perfkit comparison") -> String {
        let regressed = comparison.count(.regressed)
        let improved = comparison.count(.improved)
        let unchanged = comparison.count(.noChange) + comparison.count(.withinNoise)
        let threshold = formatNumber(comparison.thresholdPercent)
        let alpha = formatNumber(comparison.alpha)
        let inconclusive = comparison.count(.inconclusive)
        var counts = "**\(regressed) regressed**, \(improved) improved, \(unchanged) unchanged or within noise"
        if inconclusive > 0 { counts += ", **\(inconclusive) inconclusive (machine busy)**" }
        let basis = "(threshold \(threshold)%, α = \(alpha), \(comparison.multipleComparisonControl) correction)."
        var lines: [String] = ["### \(title)", "", counts + " " + basis, ""]
        lines.append("| Verdict | Benchmark | Metric | Baseline | Current | Change | 95% CI | p (adj.) |")
        lines.append("|---|---|---|---:|---:|---:|---|---:|")
        for entry in sortedForReview(comparison.entries) {
            var ci = ""
            if let interval = entry.ratioConfidenceInterval {
                ci = UnitFormatting.change(ratio: interval.lower) + " … " + UnitFormatting.change(ratio: interval.upper)
            }
            let baseline: String = entry.baselineMedian.map { entry.metric.formatted($0) } ?? "—"
            let current: String = entry.currentMedian.map { entry.metric.formatted($0) } ?? "—"
            let change: String = entry.ratio.map { UnitFormatting.change(ratio: $0) } ?? "—"
            let p: String = entry.adjustedPValue.map { UnitFormatting.pValue($0) } ?? "—"
            let label = verdictLabel(entry.verdict)
            let id = "`" + escape(entry.id) + "`"
            let cells: [String] = [label, id, entry.metric.displayName, baseline, current, change, ci, p]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        lines += whereItGrew(comparison)
        return lines.joined(separator: "\n") + "\n"
    }

    /// Under the table, for each regressed benchmark with profiles: the functions that grew most.
    static func whereItGrew(_ comparison: Comparison) -> [String] {
        var lines: [String] = []
        for entry in sortedForReview(comparison.entries) {
            for differential in [entry.functionDifferential, entry.timeDifferential].compactMap({ $0 }) {
                let (heading, grown) = ComparisonWording.functionDifferential(differential) { "`\(escape($0))`" }
                lines += ["", "`\(escape(entry.id))` \(heading)"]
                for (change, line) in zip(differential.grown, grown) {
                    lines.append("- \(line)")
                    lines += ComparisonWording.compiledCode(of: change).map { "  - \(escape($0))" }
                }
                lines += (differential.compiledCodeNotes ?? []).map { "- \(escape($0))" }
            }
        }
        return lines
    }

    /// Regressions first (largest first), then improvements, then the rest by id.
    public static func sortedForReview(_ entries: [ComparisonEntry]) -> [ComparisonEntry] {
        func rank(_ verdict: ComparisonEntry.Verdict) -> Int {
            switch verdict {
            case .regressed: 0
            case .improved: 1
            case .inconclusive: 2
            case .withinNoise: 3
            case .added, .removed: 4
            case .noChange: 5
            }
        }
        return entries.sorted { a, b in
            if rank(a.verdict) != rank(b.verdict) { return rank(a.verdict) < rank(b.verdict) }
            if a.verdict == .regressed { return (a.ratio ?? 0) > (b.ratio ?? 0) }
            return a.id < b.id
        }
    }

    /// The verdict with a symbol, so that the table reads at a glance where emoji show colour.
    static func verdictLabel(_ verdict: ComparisonEntry.Verdict) -> String {
        switch verdict {
        case .regressed: "🔴 \(verdict.displayName)"
        case .improved: "🟢 \(verdict.displayName)"
        case .inconclusive: "🟡 \(verdict.displayName)"
        case .noChange, .withinNoise, .added, .removed: verdict.displayName
        }
    }

    static func formatNumber(_ value: Double, digits: Int = 3) -> String {
        var text = String(format: "%.\(digits)f", value)
        while text.contains("."), text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// Benchmark ids go inside code spans; a backtick or pipe would break the table.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "`", with: "'").replacingOccurrences(of: "|", with: "\\|")
    }
}
