import PerfReport

/// Per suite and group: a table, a bar chart of the medians with their intervals, a log–log
/// scaling chart when the group has parameterised benchmarks, and per benchmark case a folded
/// block with the raw samples and every number measured. Large reports start with groups folded
/// so a thousand benchmarks stay navigable; the filter box (with JavaScript) narrows them down.
struct BenchmarksSection {
    var page: PageContext

    /// Above this many cases, groups start folded.
    static let foldThreshold = 60

    struct Group {
        var suite: String
        var name: String
        var results: [BenchmarkResult]
    }

    /// Suites and groups in the order they first appear; within a group the cases of one
    /// benchmark stay together, ordered by parameter.
    static func groups(_ results: [BenchmarkResult]) -> [(suite: String, groups: [Group])] {
        var suites: [String] = []
        var groups: [String: [Group]] = [:]
        for result in results {
            if groups[result.suite] == nil {
                suites.append(result.suite)
                groups[result.suite] = []
            }
            if let index = groups[result.suite]!.firstIndex(where: { $0.name == result.group }) {
                groups[result.suite]![index].results.append(result)
            } else {
                groups[result.suite]!.append(Group(suite: result.suite, name: result.group, results: [result]))
            }
        }
        return suites.map { suite in
            let ordered = groups[suite]!.map { group -> Group in
                var names: [String] = []
                for result in group.results where !names.contains(result.name) { names.append(result.name) }
                var sorted = group
                sorted.results = group.results.enumerated().sorted { a, b in
                    let na = names.firstIndex(of: a.element.name)!
                    let nb = names.firstIndex(of: b.element.name)!
                    if na != nb { return na < nb }
                    if let pa = a.element.parameter, let pb = b.element.parameter, pa != pb { return pa < pb }
                    return a.offset < b.offset
                }.map(\.element)
                return sorted
            }
            return (suite, ordered)
        }
    }

    func render() -> Markup {
        let results = page.report.benchmarks
        guard !results.isEmpty else { return "<p class=\"muted\">This report has no benchmark results.</p>" }
        let folded = results.count > BenchmarksSection.foldThreshold
        var out: Markup = """
            <div class="filter" id="filter" hidden><label>Filter benchmarks: <input type="search" \
            placeholder="part of a name, e.g. Array" aria-label="Filter benchmarks by name"></label></div>
            """
        for (suite, groups) in BenchmarksSection.groups(results) {
            let count = groups.reduce(0) { $0 + $1.results.count }
            out += """
                <details class="suite" open><summary>\(suite) <span class="muted small">\(count) case\
                \(count == 1 ? "" : "s"), \(groups.count) group\(groups.count == 1 ? "" : "s")</span></summary>
                """
            for group in groups {
                out += render(group, open: !folded)
            }
            out += "</details>"
        }
        return out
    }

    private func render(_ group: Group, open: Bool) -> Markup {
        let results = group.results
        let regressions = results.filter { page.comparisonEntries[$0.id]?.verdict == .regressed }.count
        let warnings = results.filter { !$0.warnings.isEmpty }.count
        var badges = Markup()
        if regressions > 0 { badges += " <span class=\"badge v-regressed\">▲ \(regressions) regressed</span>" }
        if warnings > 0 { badges += " <span class=\"warn-mark small\">⚠ \(warnings) with warnings</span>" }
        // A group with a regression opens even in a large report, so it is seen first.
        var out: Markup = """
            <details class="group"\(open || regressions > 0 ? " open" : "" as Markup)><summary>\(group.suite)/\(group.name) \
            <span class="muted small">\(results.count) case\(results.count == 1 ? "" : "s")</span>\(badges)</summary>
            """
        out += table(results)
        let bars = results.map { result in
            MedianBarChart.Bar(
                label: PageContext.caseName(result), median: result.wallTime.median,
                lower: result.wallTime.medianConfidenceInterval.lower,
                upper: result.wallTime.medianConfidenceInterval.upper, anchor: page.benchmarkAnchors[result.id] ?? "")
        }
        out += MedianBarChart(title: "\(group.suite)/\(group.name): median time per operation with 95% CI", bars: bars)
            .render()
        out += scalingChart(group)
        for result in results { out += detail(result) }
        out += "</details>"
        return out
    }

    private func scalingChart(_ group: Group) -> Markup {
        var names: [String] = []
        for result in group.results where result.parameter != nil && !names.contains(result.name) {
            names.append(result.name)
        }
        let series = names.map { name in
            ScalingChart.Series(
                name: name,
                points: group.results.filter { $0.name == name }.compactMap { result in
                    result.parameter.map {
                        ScalingChart.Point(
                            size: Double($0), median: result.wallTime.median,
                            lower: result.wallTime.medianConfidenceInterval.lower,
                            upper: result.wallTime.medianConfidenceInterval.upper)
                    }
                })
        }
        let chart = ScalingChart(
            title: "\(group.suite)/\(group.name): time per operation vs size (log–log)", series: series
        )
        .render()
        return chart == "" ? "" : "<h3>Scaling</h3>\(chart)"
    }

    private func table(_ results: [BenchmarkResult]) -> Markup {
        let hasThroughput = results.contains { $0.throughput != nil }
        let hasAllocations = results.contains { $0.allocationsPerOperation != nil }
        let hasInstructions = results.contains { $0.instructionsPerOperation != nil }
        let hasClaims = results.contains { $0.claim != nil }
        let hasCompiledForm = results.contains { $0.compiledForm != nil }
        let hasComparison = results.contains { page.comparisonEntries[$0.id] != nil }
        var out: Markup =
            "<table class=\"sortable bench-table\"><thead><tr><th>Benchmark</th><th class=\"num\">Median</th><th class=\"num\">95% CI</th><th class=\"num\">CV</th>"
        if hasThroughput { out += "<th class=\"num\">Throughput</th>" }
        if hasAllocations { out += "<th class=\"num\">Allocations / op</th>" }
        if hasInstructions { out += "<th class=\"num\">Instructions / op</th>" }
        if hasComparison { out += "<th>vs baseline</th>" }
        if hasClaims { out += "<th>Claim</th>" }
        if hasCompiledForm { out += "<th>Compiled as</th>" }
        out += "<th class=\"num\">Samples</th></tr></thead><tbody>"
        for result in results {
            let time = result.wallTime
            let warning: Markup =
                result.warnings.isEmpty
                ? ""
                : " <span class=\"warn-mark\" title=\"\(result.warnings.map(\.message).joined(separator: "\n"))\">⚠</span>"
            out += """
                <tr class="bench-row" data-filter="\(PageContext.filterKey(result.id))" data-id="\(result.id)">\
                <td class="name" data-value=""><a href="#\(page.benchmarkAnchors[result.id] ?? "")">\
                \(PageContext.caseName(result))</a>\(warning)\(trendLink(result.id))</td>\
                <td class="num" data-value="\(value: time.median)">\(UnitFormatting.duration(nanoseconds: time.median))</td>\
                <td class="num" data-value="\(value: time.medianConfidenceInterval.upper - time.medianConfidenceInterval.lower)">\
                \(UnitFormatting.duration(nanoseconds: time.medianConfidenceInterval.lower)) … \
                \(UnitFormatting.duration(nanoseconds: time.medianConfidenceInterval.upper))</td>\
                <td class="num" data-value="\(value: time.coefficientOfVariation)">\(UnitFormatting.percent(time.coefficientOfVariation))</td>
                """
            if hasThroughput {
                if let throughput = result.throughput {
                    let rate = throughput.perSecond(nanosecondsPerOperation: time.median)
                    out +=
                        "<td class=\"num\" data-value=\"\(value: rate)\">\(BenchmarksSection.throughput(rate, throughput.unit))</td>"
                } else {
                    out += "<td class=\"num\">—</td>"
                }
            }
            if hasAllocations {
                if let allocations = result.allocationsPerOperation {
                    let bytes = result.allocatedBytesPerOperation.map { " (\(UnitFormatting.bytes($0)))" } ?? ""
                    out +=
                        "<td class=\"num\" data-value=\"\(value: allocations)\">\(UnitFormatting.count(allocations))\(bytes)</td>"
                } else {
                    out += "<td class=\"num\">—</td>"
                }
            }
            if hasInstructions {
                if let instructions = result.instructionsPerOperation {
                    out +=
                        "<td class=\"num\" data-value=\"\(value: instructions)\" title=\"\(result.instructionsSource ?? "")\">\(UnitFormatting.count(instructions.rounded()))</td>"
                } else {
                    out += "<td class=\"num\">—</td>"
                }
            }
            if hasComparison {
                if let entry = page.comparisonEntries[result.id] {
                    let style = ComparisonVerdictStyle(entry.verdict)
                    out += """
                        <td class="nowrap" data-value="\(style.rank)"><a href="#\(page.comparisonAnchors[entry.id] ?? "")">\(style.badge)</a> \
                        \(entry.ratio.map { UnitFormatting.change(ratio: $0) } ?? "")</td>
                        """
                } else {
                    out += "<td>—</td>"
                }
            }
            if hasClaims {
                if let claim = result.claim {
                    out += "<td>\(claim.statement) \(BenchmarksSection.claimBadge(claim.verdict))</td>"
                } else {
                    out += "<td>—</td>"
                }
            }
            if hasCompiledForm {
                if let form = result.compiledForm {
                    out += "<td><span class=\"tag\" title=\"\(form.symbol)\">\(form.kind.rawValue)</span></td>"
                } else {
                    out += "<td>—</td>"
                }
            }
            out += """
                <td class="num" data-value="\(time.count)">\(time.count)\
                \(time.outliers.total > 0 ? " (\(time.outliers.total) outlier\(time.outliers.total == 1 ? "" : "s"))" : "")</td></tr>
                """
        }
        out += "</tbody></table>"
        return out
    }

    /// " trend", linking the benchmark's chart on the history page when one lies beside the report.
    private func trendLink(_ id: String) -> Markup {
        guard let link = page.historyLink(id) else { return "" }
        return " <a class=\"small\" href=\"\(link)\" title=\"its trend over commits on the history page\">trend</a>"
    }

    private func detail(_ result: BenchmarkResult) -> Markup {
        let time = result.wallTime
        var out: Markup = """
            <details class="bench" id="\(page.benchmarkAnchors[result.id] ?? "")" \
            data-filter="\(PageContext.filterKey(result.id))"><summary><span class="mono">\(result.id)</span> \
            <span class="muted">median \(UnitFormatting.duration(nanoseconds: time.median))</span></summary>
            """
        out += StripPlot(
            title: "\(result.id): every sample's time per operation",
            rows: [.init(label: "samples", samples: result.wallNanosecondsPerOperation, style: "current")]
        ).render()
        var stats: [(String, String)] = [
            ("min", UnitFormatting.duration(nanoseconds: time.min)),
            ("median", UnitFormatting.duration(nanoseconds: time.median)),
            ("mean", UnitFormatting.duration(nanoseconds: time.mean)),
            ("p90", UnitFormatting.duration(nanoseconds: time.p90)),
            ("p99", UnitFormatting.duration(nanoseconds: time.p99)),
            ("max", UnitFormatting.duration(nanoseconds: time.max)),
            ("std. deviation", UnitFormatting.duration(nanoseconds: time.standardDeviation)),
            ("MAD", UnitFormatting.duration(nanoseconds: time.medianAbsoluteDeviation)),
            ("CV", UnitFormatting.percent(time.coefficientOfVariation)),
            ("samples", String(time.count)),
            ("iterations", String(result.samples.reduce(0) { $0 + $1.iterations })),
            (
                "outliers",
                "\(time.outliers.lowSevere)/\(time.outliers.lowMild) low, \(time.outliers.highMild)/\(time.outliers.highSevere) high"
            ),
        ]
        if let cpu = result.cpuTime {
            stats.append(("CPU time median", UnitFormatting.duration(nanoseconds: cpu.median)))
        }
        if let throughput = result.throughput {
            stats.append(
                (
                    "throughput",
                    BenchmarksSection.throughput(
                        throughput.perSecond(nanosecondsPerOperation: time.median), throughput.unit)
                ))
        }
        if let allocations = result.allocationsPerOperation {
            stats.append(("allocations / op", UnitFormatting.count(allocations)))
        }
        if let bytes = result.allocatedBytesPerOperation {
            stats.append(("allocated / op", UnitFormatting.bytes(bytes)))
        }
        if let instructions = result.instructionsPerOperation {
            stats.append(
                (
                    "instructions / op",
                    UnitFormatting.count(instructions.rounded()) + (result.instructionsSource.map { " (\($0))" } ?? "")
                ))
        }
        if let threshold = result.thresholdPercent {
            stats.append(("threshold", "±\(UnitFormatting.count(threshold)) %"))
        }
        for (name, value) in result.counters.sorted(by: { $0.key < $1.key }) {
            stats.append((name, UnitFormatting.count(value)))
        }
        out += "<dl class=\"stats\">"
        for (name, value) in stats { out += "<div><dt>\(name)</dt><dd>\(value)</dd></div>" }
        out += "</dl>"
        if !result.warnings.isEmpty {
            out += "<div class=\"warnbox\"><ul>"
            for warning in result.warnings {
                out += "<li>\(warning.message) <span class=\"rule\">[\(warning.rule)]</span></li>"
            }
            out += "</ul></div>"
        }
        if let claim = result.claim {
            out +=
                "<p><strong>Claim:</strong> \(claim.statement) \(BenchmarksSection.claimBadge(claim.verdict))<br>\(claim.evidence)</p>"
        }
        if let form = result.compiledForm {
            out += """
                <p><strong>Compiled as:</strong> <span class="tag">\(form.kind.rawValue)</span> in \
                <span class="mono">\(form.symbol)</span></p><pre>\(form.evidence.joined(separator: "\n"))</pre>
                """
        }
        if let anchor = page.comparisonAnchors[result.id] {
            out += "<p class=\"small\"><a href=\"#\(anchor)\">Comparison with the baseline</a></p>"
        }
        if let link = page.historyLink(result.id) {
            out +=
                "<p class=\"small\"><a href=\"\(link)\">Trend over commits</a> (the history page beside this report)</p>"
        }
        out += "</details>"
        return out
    }

    static func throughput(_ rate: Double, _ unit: Throughput.Unit) -> String {
        switch unit {
        case .bytes: return UnitFormatting.bytesPerSecond(rate)
        case .items: return UnitFormatting.itemsPerSecond(rate)
        }
    }

    static func claimBadge(_ verdict: Claim.Verdict) -> Markup {
        switch verdict {
        case .held: return "<span class=\"badge claim-held\">✓ held</span>"
        case .didNotHold: return "<span class=\"badge claim-didnothold\">✗ did not hold</span>"
        case .inconclusive: return "<span class=\"badge claim-inconclusive\">? inconclusive</span>"
        }
    }
}
