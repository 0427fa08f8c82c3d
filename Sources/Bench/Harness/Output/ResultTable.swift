import PerfReport

/// The compact end-of-run table, as aligned text for a terminal or as markdown.
public enum ResultTable {
    static let headers = ["Benchmark", "Median", "95% CI", "CV", "Samples", "Throughput", "Notes"]

    static func rows(_ report: Report) -> [[String]] {
        report.benchmarks.map { result in
            let stats = result.wallTime
            let ci = stats.medianConfidenceInterval
            var throughput = ""
            if let rate = result.throughput {
                let perSecond = rate.perSecond(nanosecondsPerOperation: stats.median)
                throughput =
                    rate.unit == .bytes
                    ? UnitFormatting.bytesPerSecond(perSecond) : UnitFormatting.itemsPerSecond(perSecond)
            }
            var notes = result.warnings.map(\.rule)
            if let verdict = result.claim?.verdict { notes.insert("claim \(verdict.rawValue)", at: 0) }
            if let form = result.compiledForm?.kind { notes.insert(form.rawValue, at: 0) }
            return [
                result.id,
                UnitFormatting.duration(nanoseconds: stats.median),
                "\(UnitFormatting.duration(nanoseconds: ci.lower)) … \(UnitFormatting.duration(nanoseconds: ci.upper))",
                UnitFormatting.percent(stats.coefficientOfVariation),
                "\(stats.count)",
                throughput,
                notes.joined(separator: ", "),
            ]
        }
    }

    public static func text(_ report: Report) -> String {
        let all = [headers] + rows(report)
        var widths = [Int](repeating: 0, count: headers.count)
        for row in all {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        let rightAligned: Set<Int> = [1, 3, 4]
        return all.map { row in
            row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return rightAligned.contains(column) ? pad + cell : cell + pad
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }.joined(separator: "\n") + "\n"
    }

    public static func markdown(_ report: Report) -> String {
        var lines = [
            "### perfkit run — \(report.environment.host), \(report.environment.cpuModel)",
            "",
        ]
        if let note = report.environment.emulationNote { lines += ["> Emulated: \(note).", ""] }
        lines += [
            "| " + headers.joined(separator: " | ") + " |",
            "|---|---:|---|---:|---:|---:|---|",
        ]
        for row in rows(report) {
            var cells = row
            cells[0] = "`\(MarkdownSummary.escape(cells[0]))`"
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        for metric in report.metrics where !metric.available {
            lines.append("")
            lines.append("- \(metric.metric.rawValue) not measured: \(metric.reason ?? "unavailable")")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.hasSuffix(" ") { copy.removeLast() }
        return copy
    }
}
