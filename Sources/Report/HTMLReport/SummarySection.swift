import PerfReport

/// The top of the page, the findings: what the run contains, the claims' verdicts (``ClaimsTable``),
/// what got slower against the baseline, by how much, and whether that is real (verdict counts,
/// then every regression, largest first, and improvement with ratio, interval and p-value), and the
/// headline costs (``HeadlineCostsTables``).
struct SummarySection {
    var page: PageContext

    func render() -> Markup {
        let report = page.report
        let findings = Findings(report)
        var out = overview()
        out += ClaimsTable(page: page, findings: findings).render()
        out += comparison()
        out += rounds(findings)
        out += HeadlineCostsTables(page: page, findings: findings).render()
        return out
    }

    private func overview() -> Markup {
        let report = page.report
        let suites = Set(report.benchmarks.map(\.suite)).count
        let unstable = report.benchmarks.filter { !$0.warnings.isEmpty }.count
        return """
            <p>\(report.benchmarks.count) benchmark cases in \(suites) suite\(suites == 1 ? "" : "s")\
            \(unstable > 0 ? ", \(unstable) with warnings" : "")\
            \(report.complete ? "" : " — <strong>incomplete run</strong>" as Markup)\
            \(report.settings.profile.map { " — \($0) profile" } ?? "").</p>
            """
    }

    /// The rounds in which the machine moved within a process, or why that cannot be told.
    private func rounds(_ findings: Findings) -> Markup {
        var out: Markup = ""
        for note in ComparisonWording.roundNotes(findings) { out += "<p class=\"small\">Note: \(note).</p>" }
        return out
    }

    private func comparison() -> Markup {
        let report = page.report
        guard let comparison = report.comparison else {
            return "<p class=\"muted\">No baseline comparison in this report.</p>"
        }
        var out: Markup = "<h3>Against the baseline</h3>"
        let regressed = comparison.count(.regressed)
        let improved = comparison.count(.improved)
        let unchanged = comparison.count(.noChange) + comparison.count(.withinNoise)
        let added = comparison.count(.added)
        let removed = comparison.count(.removed)
        let inconclusive = comparison.count(.inconclusive)
        out += "<div class=\"verdict-summary\">"
        out += "<span class=\"count v-regressed\" id=\"count-regressed\"><b>\(regressed)</b>▲ regressed</span>"
        out += "<span class=\"count v-improved\" id=\"count-improved\"><b>\(improved)</b>▼ improved</span>"
        out += "<span class=\"count v-same\" id=\"count-unchanged\"><b>\(unchanged)</b>= unchanged</span>"
        if inconclusive > 0 {
            out += "<span class=\"count v-other\" id=\"count-inconclusive\"><b>\(inconclusive)</b>? inconclusive "
            out += "(machine busy)</span>"
        }
        if added + removed > 0 {
            out += "<span class=\"count v-other\"><b>\(added)</b>added</span>"
            out += "<span class=\"count v-other\"><b>\(removed)</b>removed</span>"
        }
        out += "</div>"
        let baselineDate = comparison.baselineCreatedAt.map { " from \(page.date($0))" } ?? ""
        out += """
            <p class="small muted">Against the baseline\(baselineDate); regression threshold \
            \(UnitFormatting.count(comparison.thresholdPercent)) % unless a benchmark declares its own; \
            significance α = \(UnitFormatting.count(comparison.alpha)) with \
            \(comparison.multipleComparisonControl) correction for \(comparison.entries.count) comparisons.</p>
            """
        for caveat in comparison.caveats ?? [] {
            out += "<p class=\"small\">Note: \(ComparisonWording.caveat(caveat)).</p>"
        }
        let ordered = ComparisonSection.ordered(comparison.entries)
        let changes = ordered.filter { $0.verdict == .regressed || $0.verdict == .improved }
        if changes.isEmpty {
            out +=
                inconclusive > 0
                ? "<p>No benchmark changed beyond its threshold; \(inconclusive) could not be judged (machine busy).</p>"
                : "<p>No benchmark changed beyond its threshold.</p>"
        } else {
            out += "<ol class=\"changes\" id=\"changes\">"
            for entry in changes.prefix(50) {
                out += "<li>\(SummarySection.sentence(entry, anchor: page.comparisonAnchors[entry.id] ?? ""))</li>"
            }
            out += "</ol>"
            if changes.count > 50 {
                out += "<p class=\"small\">… and \(changes.count - 50) more in the comparison table below.</p>"
            }
        }
        return out
    }

    /// One line per change: verdict badge, name, change with its interval, medians, p-value.
    static func sentence(_ entry: ComparisonEntry, anchor: String) -> Markup {
        let style = ComparisonVerdictStyle(entry.verdict)
        var out: Markup = "\(style.badge) <a href=\"#\(anchor)\" class=\"mono\">\(PageContext.breakable(entry.id))</a>"
        if let ratio = entry.ratio {
            out += " <strong>\(UnitFormatting.change(ratio: ratio))</strong>"
            if let interval = entry.ratioConfidenceInterval {
                out += """
                     (\(UnitFormatting.count((interval.level * 100).rounded()))% CI \
                    \(UnitFormatting.change(ratio: interval.lower)) … \(UnitFormatting.change(ratio: interval.upper)))
                    """
            }
        }
        if let before = entry.baselineMedian, let after = entry.currentMedian {
            out += ", \(entry.metric.formatted(before)) → \(entry.metric.formatted(after))"
        }
        if let p = entry.adjustedPValue ?? entry.pValue {
            out += ", \(UnitFormatting.pValue(p))"
        }
        return out
    }
}
