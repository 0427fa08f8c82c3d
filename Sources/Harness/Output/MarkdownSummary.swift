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
            let baseline: String = entry.baselineMedian.map { value(entry.metric, $0) } ?? "—"
            let current: String = entry.currentMedian.map { value(entry.metric, $0) } ?? "—"
            let change: String = entry.ratio.map { UnitFormatting.change(ratio: $0) } ?? "—"
            let p: String = entry.adjustedPValue.map { formatP($0) } ?? "—"
            let label = verdictLabel(entry.verdict)
            let id = "`" + escape(entry.id) + "`"
            let cells: [String] = [label, id, entry.metric.rawValue, baseline, current, change, ci, p]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n") + "\n"
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

    static func verdictLabel(_ verdict: ComparisonEntry.Verdict) -> String {
        switch verdict {
        case .regressed: "🔴 regressed"
        case .improved: "🟢 improved"
        case .noChange: "no change"
        case .withinNoise: "within noise"
        case .inconclusive: "🟡 inconclusive (machine busy)"
        case .added: "added"
        case .removed: "removed"
        }
    }

    static func value(_ metric: Metric, _ value: Double) -> String {
        switch metric {
        case .wallTime, .cpuTime: UnitFormatting.duration(nanoseconds: value)
        default: formatNumber(value)
        }
    }

    static func formatP(_ p: Double) -> String { p < 0.0001 ? "<0.0001" : formatNumber(p, digits: 4) }

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
