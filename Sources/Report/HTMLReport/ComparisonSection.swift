import PerfReport

/// The comparison view: a ratio chart of what changed, a table of every compared benchmark
/// (regressions first, then improvements, then the rest), and per benchmark the baseline and
/// current distributions overlaid with the ratio, its interval and the verdict in words.
struct ComparisonSection {
    var page: PageContext

    func render() -> Markup {
        guard let comparison = page.report.comparison else { return "" }
        let ordered = ComparisonSection.ordered(comparison.entries)
        var out = Markup()
        let changed = ordered.filter { $0.verdict == .regressed || $0.verdict == .improved }
        let charted = (changed.isEmpty ? ordered : changed).filter { $0.ratio != nil }.prefix(60)
        if !charted.isEmpty {
            let rows = charted.map { entry in
                RatioChart.Row(
                    label: entry.id, ratio: entry.ratio ?? 1, lower: entry.ratioConfidenceInterval?.lower,
                    upper: entry.ratioConfidenceInterval?.upper, thresholdPercent: entry.thresholdPercent,
                    verdict: ComparisonVerdictStyle(entry.verdict), anchor: page.comparisonAnchors[entry.id] ?? "")
            }
            let chart = RatioChart(title: "Current / baseline median per benchmark", rows: Array(rows)).render()
            if chart != "" {
                out += "<h3>\(changed.isEmpty ? "Ratios" : "What changed") (current / baseline, 95% CI)</h3>\(chart)"
            }
        }
        out += """
            <table class="sortable" id="comparison-table"><thead><tr><th>Benchmark</th><th>Verdict</th>\
            <th class="num">Change</th><th class="num">95% CI of ratio</th><th class="num">Baseline</th>\
            <th class="num">Current</th><th class="num">p (adjusted)</th><th class="num">Threshold</th>\
            <th>Metric</th></tr></thead><tbody>
            """
        for entry in ordered {
            let style = ComparisonVerdictStyle(entry.verdict)
            let interval =
                entry.ratioConfidenceInterval.flatMap { ci in
                    ci.lower.isFinite && ci.upper.isFinite
                        ? "\(UnitFormatting.significant(ci.lower))× … \(UnitFormatting.significant(ci.upper))×" : nil
                } ?? "—"
            out += """
                <tr class="cmp-row \(style.cssClass)-row" data-filter="\(PageContext.filterKey(entry.id))" \
                data-verdict="\(entry.verdict.rawValue)"><td class="name mono">\
                <a href="#\(page.comparisonAnchors[entry.id] ?? "")">\(PageContext.breakable(entry.id))</a></td>\
                <td data-value="\(style.rank)">\(style.badge)</td>\
                <td class="num" data-value="\(value: entry.ratio ?? .nan)">\(entry.ratio.map { UnitFormatting.change(ratio: $0) } ?? "—")</td>\
                <td class="num">\(interval)</td>\
                <td class="num" data-value="\(value: entry.baselineMedian ?? .nan)">\(entry.baselineMedian.map { entry.metric.formatted($0) } ?? "—")</td>\
                <td class="num" data-value="\(value: entry.currentMedian ?? .nan)">\(entry.currentMedian.map { entry.metric.formatted($0) } ?? "—")</td>\
                <td class="num" data-value="\(value: entry.adjustedPValue ?? .nan)">\(ComparisonSection.pValues(entry))</td>\
                <td class="num">±\(UnitFormatting.count(entry.thresholdPercent)) %</td>\
                <td class="nowrap">\(entry.metric.displayName)</td></tr>
                """
        }
        out += "</tbody></table>"
        out += "<h3>Distributions, baseline vs current</h3>"
        if page.baseline == nil {
            out +=
                "<p class=\"muted\">The baseline's raw samples are not part of this report; render with <code>--baseline</code> to overlay them.</p>"
        }
        for entry in ordered {
            out += detail(entry)
        }
        return out
    }

    private func detail(_ entry: ComparisonEntry) -> Markup {
        let style = ComparisonVerdictStyle(entry.verdict)
        let current = page.report.benchmarks.first { $0.id == entry.id }
        let baseline = page.baselineResults[entry.id]
        // Regressions are open so the evidence is one glance away; the rest stay folded.
        let open = entry.verdict == .regressed
        var out: Markup = """
            <details class="cmp" id="\(page.comparisonAnchors[entry.id] ?? "")" \
            data-filter="\(PageContext.filterKey(entry.id))"\(open ? " open" : "" as Markup)><summary>\(style.badge) \
            <span class="mono">\(entry.id)</span> \(entry.ratio.map { UnitFormatting.change(ratio: $0) } ?? "")</summary>
            <p>\(entry.explanation)</p>
            """
        var rows: [StripPlot.Row] = []
        if let baseline {
            rows.append(.init(label: "baseline", samples: baseline.wallNanosecondsPerOperation, style: "baseline"))
        }
        if let current {
            rows.append(.init(label: "current", samples: current.wallNanosecondsPerOperation, style: "current"))
        }
        if entry.metric == .wallTime, !rows.isEmpty {
            out += StripPlot(title: "\(entry.id): baseline and current time per operation", rows: rows).render()
        }
        if let differential = entry.functionDifferential {
            out += whereItGrew(
                differential, base: baseline?.functionProfile, current: current?.functionProfile, id: entry.id)
        }
        if let differential = entry.timeDifferential {
            out += whereItGrew(
                differential, base: baseline?.timeProfile, current: current?.timeProfile, id: entry.id)
        }
        if let anchor = page.benchmarkAnchors[entry.id] {
            out += "<p class=\"small\"><a href=\"#\(anchor)\">Details of the current measurement</a></p>"
        }
        out += "</details>"
        return out
    }

    /// The functions that grew most, with their compiled-code lines, and the differential flame
    /// graph of the two profiles, instructions or sampled time (one caller deep: the profiles keep
    /// edges, not stacks).
    private func whereItGrew(
        _ differential: FunctionDifferential, base: FunctionProfile?, current: FunctionProfile?, id: String
    ) -> Markup {
        let (heading, lines) = ComparisonWording.functionDifferential(differential)
        var out: Markup = "<p>\(heading)</p>"
        if !lines.isEmpty || !(differential.compiledCodeNotes ?? []).isEmpty {
            out += "<ul class=\"grown\">"
            for (change, line) in zip(differential.grown, lines) {
                out += "<li class=\"mono\">\(line)"
                let code = ComparisonWording.compiledCode(of: change)
                if !code.isEmpty { out += "<ul>\(code.map { "<li>\($0)</li>" as Markup })</ul>" }
                out += "</li>"
            }
            out += (differential.compiledCodeNotes ?? []).map { "<li>\($0)</li>" as Markup }.joined()
            out += "</ul>"
        }
        guard let base, let current else { return out }
        var merged: [[String]: (base: Double, new: Double)] = [:]
        for stack in base.callerStacks() { merged[stack.frames, default: (0, 0)].base += stack.value }
        for stack in current.callerStacks() { merged[stack.frames, default: (0, 0)].new += stack.value }
        let tree = DifferentialTree(
            root: "one operation", stacks: merged.map { (frames: $0.key, base: $0.value.base, new: $0.value.new) })
        let sampled = differential.isSampled
        out += """
            <p class="small">\(sampled ? "Sampled CPU time" : "Instructions") per operation by function and \
            caller: widths are the current build's, red grew and blue shrank against the baseline.</p>
            """
        out += DifferentialIcicle(
            title: "\(id): \(sampled ? "sampled time" : "instructions") by function, current against baseline",
            tree: tree,
            format: { sampled ? UnitFormatting.duration(nanoseconds: $0) : "\(UnitFormatting.count($0)) instr" }
        ).render()
        return out
    }

    /// Regressions first (largest slowdown first), then improvements (largest speed-up first),
    /// then removed, added and unchanged, each by name.
    static func ordered(_ entries: [ComparisonEntry]) -> [ComparisonEntry] {
        entries.sorted { a, b in
            let ra = ComparisonVerdictStyle(a.verdict).rank
            let rb = ComparisonVerdictStyle(b.verdict).rank
            if ra != rb { return ra < rb }
            switch a.verdict {
            case .regressed: if let x = a.ratio, let y = b.ratio, x != y { return x > y }
            case .improved: if let x = a.ratio, let y = b.ratio, x != y { return x < y }
            default: break
            }
            return a.id < b.id
        }
    }

    /// The adjusted p-value, and the raw one beside it when both are known.
    static func pValues(_ entry: ComparisonEntry) -> String {
        switch (entry.pValue, entry.adjustedPValue) {
        case (let raw?, let adjusted?): return "\(UnitFormatting.pValue(adjusted)) (raw \(UnitFormatting.pValue(raw)))"
        case (let raw?, nil): return UnitFormatting.pValue(raw)
        case (nil, let adjusted?): return UnitFormatting.pValue(adjusted)
        case (nil, nil): return "—"
        }
    }
}
