import PerfReport

/// The markdown a regression gate leaves for the pull request: the comparison table, which
/// benchmarks use their own threshold, and what was not gated and why.
public enum GateSummary {
    public static func markdown(_ comparison: Comparison, title: String, notes: [String] = []) -> String {
        var text = MarkdownSummary.comparison(comparison, title: title)
        let metrics = Set(comparison.entries.map(\.metric)).sorted().map(\.displayName)
        if !metrics.isEmpty { text += "\nVerdicts by: \(metrics.joined(separator: ", ")).\n" }
        let ownThresholds = Dictionary(
            comparison.entries.filter { $0.thresholdPercent != comparison.thresholdPercent }
                .map { ($0.id, $0.thresholdPercent) },
            uniquingKeysWith: { first, _ in first })
        if !ownThresholds.isEmpty {
            text += "\nBenchmarks with their own threshold:\n"
            for (id, threshold) in ownThresholds.sorted(by: { $0.key < $1.key }) {
                text += "- `\(MarkdownSummary.escape(id))`: \(MarkdownSummary.formatNumber(threshold))%\n"
            }
        }
        for caveat in comparison.caveats ?? [] { text += "\nNote: \(ComparisonWording.caveat(caveat)).\n" }
        let inconclusive = comparison.entries.filter { $0.verdict == .inconclusive }
        if !inconclusive.isEmpty {
            text += "\nInconclusive (machine busy) — measure again; exit 3 when nothing regressed:\n"
            for entry in inconclusive { text += "- `\(MarkdownSummary.escape(entry.id))`: \(entry.explanation)\n" }
        }
        let skipped = comparison.skipped ?? []
        if !skipped.isEmpty {
            text += "\nNot gated (\(skipped.count)):\n"
            for line in skipped { text += "- \(line)\n" }
        }
        let notes = notes + (comparison.notes ?? [])
        if !notes.isEmpty {
            text += "\n" + notes.map { "- \($0)\n" }.joined()
        }
        return text
    }
}
