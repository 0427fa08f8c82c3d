import PerfReport
/// Horizontal bars of the median time per operation with the confidence interval as whiskers, one
/// bar per benchmark case, in the order given (so the variants being compared sit side by side).
struct MedianBarChart {
    struct Bar {
        var label: String
        var median: Double
        var lower: Double
        var upper: Double
        /// The page anchor of the benchmark's details, so a bar links to them.
        var anchor: String
    }

    var title: String
    var bars: [Bar]

    func render() -> Markup {
        guard !bars.isEmpty else { return "" }
        let width = 760.0
        let labelWidth = 230.0
        let valueWidth = 80.0
        let rowHeight = 20.0
        let top = 8.0
        let plotBottom = top + rowHeight * Double(bars.count)
        let height = plotBottom + 36
        let values = bars.flatMap { [$0.median, $0.lower, $0.upper] }.filter { $0.isFinite && $0 > 0 }
        // Bars on a linear axis from zero are honest; when the cases differ by orders of magnitude
        // the short bars would vanish, so switch to a log axis and say so in the caption.
        let spread = (values.max() ?? 1) / (values.min() ?? 1)
        let logarithmic = spread > 50
        let scale = ChartScale(
            covering: values, pixels: (labelWidth, width - valueWidth), logarithmic: logarithmic,
            includeZero: !logarithmic)
        var out = ChartParts.open(width: width, height: height, label: title)
        out += ChartParts.horizontalAxis(
            scale, y: plotBottom, gridTop: top, format: UnitFormatting.durationTick(nanoseconds:),
            caption: logarithmic ? "time per operation (log scale)" : "time per operation")
        for (index, bar) in bars.enumerated() {
            let y = top + rowHeight * Double(index)
            let middle = y + rowHeight / 2
            let start = logarithmic ? scale.pixelLower : scale(0)
            let end = scale(bar.median)
            let characters = ChartParts.characters(fitting: labelWidth - 10)
            let interval =
                "\(UnitFormatting.duration(nanoseconds: bar.lower)) … \(UnitFormatting.duration(nanoseconds: bar.upper))"
            out += """
                <a href="#\(bar.anchor)"><g class="bar-row"><title>\(bar.label): median \
                \(UnitFormatting.duration(nanoseconds: bar.median)), 95% CI \(interval)</title>\
                <text x="\(px: labelWidth - 8)" y="\(px: middle + 4)" text-anchor="end">\
                \(ChartParts.truncated(bar.label, limit: characters))</text>\
                <rect class="bar" x="\(px: start)" y="\(px: y + 3)" width="\(px: max(0, end - start))" \
                height="\(px: rowHeight - 6)"/>\
                <line class="whisker" x1="\(px: scale(bar.lower))" x2="\(px: scale(bar.upper))" \
                y1="\(px: middle)" y2="\(px: middle)"/>\
                <line class="whisker" x1="\(px: scale(bar.lower))" x2="\(px: scale(bar.lower))" \
                y1="\(px: middle - 5)" y2="\(px: middle + 5)"/>\
                <line class="whisker" x1="\(px: scale(bar.upper))" x2="\(px: scale(bar.upper))" \
                y1="\(px: middle - 5)" y2="\(px: middle + 5)"/>\
                <text x="\(px: width - valueWidth + 6)" y="\(px: middle + 4)">\
                \(UnitFormatting.duration(nanoseconds: bar.median))</text></g></a>
                """
        }
        out += "</svg>"
        return out
    }
}
