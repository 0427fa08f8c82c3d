import Foundation
import PerfReport

/// The current/baseline ratio of each compared benchmark with its confidence interval (a forest
/// plot): a dot at the ratio, whiskers for the interval, the 1× line and the regression threshold
/// band. A change is real when its whole interval sits outside the band.
struct RatioChart {
    struct Row {
        var label: String
        var ratio: Double
        var lower: Double?
        var upper: Double?
        var thresholdPercent: Double
        var verdict: ComparisonVerdictStyle
        var anchor: String
    }

    var title: String
    var rows: [Row]

    func render() -> Markup {
        let rows = rows.filter { $0.ratio.isFinite && $0.ratio > 0 }
        guard !rows.isEmpty else { return "" }
        let width = 760.0
        let labelWidth = 230.0
        let valueWidth = 120.0
        let rowHeight = 20.0
        let top = 8.0
        let plotBottom = top + rowHeight * Double(rows.count)
        let height = plotBottom + 36
        var values = rows.flatMap { [$0.ratio, $0.lower ?? $0.ratio, $0.upper ?? $0.ratio] }
        let threshold = (rows.map(\.thresholdPercent).max() ?? 5) / 100
        values += [1 / (1 + threshold), 1 + threshold]
        // Ratios are multiplicative: a log axis makes 2× slower and 2× faster equally long.
        var scale = ChartScale(
            covering: values, pixels: (labelWidth, width - valueWidth), logarithmic: true)
        let extent = values.filter { $0 > 0 && $0.isFinite }.map { abs(log10($0)) }.max() ?? 0.1
        let padded = Swift.max(extent * 1.15, 0.02)
        scale.lower = pow10(-padded)
        scale.upper = pow10(padded)
        // Ratios read best at familiar steps (0.8×, 1.25×, 2×); pick a set that fits the spread.
        switch padded {
        case ..<0.05: scale.tickValues = [0.9, 0.95, 0.98, 1, 1.02, 1.05, 1.1]
        case ..<0.2: scale.tickValues = [0.67, 0.8, 0.9, 1, 1.1, 1.25, 1.5]
        case ..<0.5: scale.tickValues = [0.33, 0.5, 0.67, 1, 1.5, 2, 3]
        default: scale.tickValues = [0.001, 0.01, 0.1, 0.5, 1, 2, 10, 100, 1000]
        }
        var out = ChartParts.open(width: width, height: height, label: title)
        out +=
            "<rect class=\"threshold-band\" x=\"\(px: scale(1 / (1 + threshold)))\" y=\"\(px: top)\" width=\"\(px: max(0, scale(1 + threshold) - scale(1 / (1 + threshold))))\" height=\"\(px: plotBottom - top)\"><title>within the ±\(UnitFormatting.count(threshold * 100)) % threshold</title></rect>"
        out += ChartParts.horizontalAxis(
            scale, y: plotBottom, gridTop: top, format: { "\(UnitFormatting.significant($0))×" },
            caption: "current / baseline median (log scale; > 1× is slower)")
        out +=
            "<line class=\"unity\" x1=\"\(px: scale(1))\" x2=\"\(px: scale(1))\" y1=\"\(px: top)\" y2=\"\(px: plotBottom)\"/>"
        for (index, row) in rows.enumerated() {
            let y = top + rowHeight * Double(index) + rowHeight / 2
            let interval =
                if let lower = row.lower, let upper = row.upper {
                    "95% CI \(UnitFormatting.significant(lower))× … \(UnitFormatting.significant(upper))×"
                } else { "no interval" }
            out += """
                <a href="#\(row.anchor)"><g class="ratio-row \(row.verdict.cssClass)"><title>\(row.label): \
                \(row.verdict.words), \(UnitFormatting.significant(row.ratio))× (\
                \(UnitFormatting.change(ratio: row.ratio))), \(interval)</title>\
                <text x="\(px: labelWidth - 8)" y="\(px: y + 4)" text-anchor="end">\
                \(ChartParts.truncated(row.label, limit: ChartParts.characters(fitting: labelWidth - 10)))</text>
                """
            if let lower = row.lower, let upper = row.upper {
                out +=
                    "<line class=\"whisker\" x1=\"\(px: scale(lower))\" x2=\"\(px: scale(upper))\" y1=\"\(px: y)\" y2=\"\(px: y)\"/>"
            }
            out += """
                <path class="marker" d="M\(px: scale(row.ratio)) \(px: y - 5)l5 5l-5 5l-5 -5z"/>\
                <text x="\(px: width - valueWidth + 6)" y="\(px: y + 4)">\(row.verdict.symbol) \
                \(UnitFormatting.change(ratio: row.ratio))</text></g></a>
                """
        }
        out += "</svg>"
        return out
    }

    private func pow10(_ exponent: Double) -> Double { Foundation.pow(10, exponent) }
}
