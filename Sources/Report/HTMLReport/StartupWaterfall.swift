import PerfReport

/// Startup phases as a waterfall: each phase a bar from the previous phase's median mark to its
/// own, cold and warm launches of the same command side by side (two bars per phase, labelled),
/// with a whisker from the fastest to the p90 launch of each mark to show the spread.
struct StartupWaterfall {
    var title: String
    /// Usually the cold and the warm result of one command.
    var results: [StartupResult]

    func render() -> Markup {
        guard !results.isEmpty else { return "" }
        var phaseNames: [String] = []
        for result in results {
            for phase in result.phases where !phaseNames.contains(phase.name) { phaseNames.append(phase.name) }
        }
        guard !phaseNames.isEmpty else { return "<p class=\"muted\">No phases were marked.</p>" }
        let width = 760.0
        let labelWidth = 170.0
        let barHeight = 12.0
        let rowHeight = barHeight * Double(results.count) + 8
        let top = 6.0
        let plotBottom = top + rowHeight * Double(phaseNames.count)
        let height = plotBottom + 52
        let ends = results.flatMap { $0.phases.flatMap { [$0.statistics.median, $0.statistics.p90] } + [$0.total.p90] }
        let scale = ChartScale(covering: ends, pixels: (labelWidth, width - 70), logarithmic: false, includeZero: true)
        var out = ChartParts.open(width: width, height: height, label: title)
        out += ChartParts.horizontalAxis(
            scale, y: plotBottom, gridTop: top, format: UnitFormatting.durationTick(nanoseconds:),
            caption: "time since launch (median; whisker: fastest … p90 launch)")
        for (row, name) in phaseNames.enumerated() {
            let y = top + rowHeight * Double(row)
            out += """
                <text x="\(px: labelWidth - 8)" y="\(px: y + rowHeight / 2 + 4)" text-anchor="end">\
                \(ChartParts.truncated(name, limit: 24))<title>\(name)</title></text>
                """
            for (index, result) in results.enumerated() {
                guard let position = result.phases.firstIndex(where: { $0.name == name }) else { continue }
                let phase = result.phases[position]
                let previous = position == 0 ? 0 : result.phases[position - 1].statistics.median
                let barY = y + 4 + barHeight * Double(index)
                let start = scale(previous)
                let end = scale(phase.statistics.median)
                let style = StartupWaterfall.style(result.mode, index: index)
                out += """
                    <g class="phase \(style)"><title>\(name), \(result.mode): at \
                    \(UnitFormatting.duration(nanoseconds: phase.statistics.median)) (median of \
                    \(phase.statistics.count)), phase takes \
                    \(UnitFormatting.duration(nanoseconds: phase.statistics.median - previous)); fastest \
                    \(UnitFormatting.duration(nanoseconds: phase.statistics.min)), p90 \
                    \(UnitFormatting.duration(nanoseconds: phase.statistics.p90))</title>\
                    <rect x="\(px: start)" y="\(px: barY)" width="\(px: max(1, end - start))" height="\(px: barHeight - 2)"/>\
                    <line class="whisker" x1="\(px: scale(phase.statistics.min))" x2="\(px: scale(phase.statistics.p90))" \
                    y1="\(px: barY + barHeight / 2 - 1)" y2="\(px: barY + barHeight / 2 - 1)"/>\
                    <text x="\(px: max(end, scale(phase.statistics.p90)) + 4)" y="\(px: barY + barHeight - 3)" \
                    class="small">\(result.mode) \(UnitFormatting.duration(nanoseconds: phase.statistics.median))</text></g>
                    """
            }
        }
        var legendX = labelWidth
        for (index, result) in results.enumerated() {
            out += """
                <g class="legend phase \(StartupWaterfall.style(result.mode, index: index))">\
                <rect x="\(px: legendX)" y="\(px: plotBottom + 36)" width="14" height="10"/>\
                <text x="\(px: legendX + 20)" y="\(px: plotBottom + 45)">\(result.mode)\
                \(result.underPressure ? " (under memory pressure)" : "")</text></g>
                """
            legendX += 200
        }
        out += "</svg>"
        return out
    }

    static func style(_ mode: String, index: Int) -> String {
        switch mode {
        case "cold": return "m-cold"
        case "warm": return "m-warm"
        default: return "m\(index % 4)"
        }
    }
}
