import PerfReport
/// Every raw sample (time per operation) as a dot on a shared time axis, one row per series, with
/// the interquartile box, the median, and Tukey outliers drawn as distinct shapes (not only colour):
/// mild outliers as hollow diamonds, severe ones as crosses. With two rows (baseline and current)
/// it is the overlaid comparison of the two distributions.
struct StripPlot {
    struct Row {
        var label: String
        var samples: [Double]
        /// CSS class of the dots, so baseline and current differ in colour and the legend matches.
        var style: String
    }

    var title: String
    var rows: [Row]

    func render() -> Markup {
        let rows = rows.filter { !$0.samples.isEmpty }
        guard !rows.isEmpty else { return "<p class=\"muted\">No samples.</p>" }
        let width = 760.0
        let labelWidth = 90.0
        let rowHeight = 44.0
        let top = 6.0
        let plotBottom = top + rowHeight * Double(rows.count)
        let height = plotBottom + 52
        let all = rows.flatMap(\.samples).filter(\.isFinite)
        let positive = all.filter { $0 > 0 }
        let logarithmic = !positive.isEmpty && positive.count == all.count && (positive.max()! / positive.min()!) > 100
        let scale = ChartScale(covering: all, pixels: (labelWidth, width - 20), logarithmic: logarithmic)
        var out = ChartParts.open(width: width, height: height, label: title)
        out += ChartParts.horizontalAxis(
            scale, y: plotBottom, gridTop: top, format: UnitFormatting.durationTick(nanoseconds:),
            caption: logarithmic ? "time per operation (log scale)" : "time per operation")
        var counts = (mild: 0, severe: 0)
        for (rowIndex, row) in rows.enumerated() {
            let y = top + rowHeight * Double(rowIndex)
            let middle = y + rowHeight / 2
            out += "<text x=\"\(px: labelWidth - 8)\" y=\"\(px: middle + 4)\" text-anchor=\"end\">\(row.label)</text>"
            guard let fences = TukeyFences(row.samples) else { continue }
            out += """
                <rect class="iqr" x="\(px: scale(fences.firstQuartile))" y="\(px: y + 6)" \
                width="\(px: max(0, scale(fences.thirdQuartile) - scale(fences.firstQuartile)))" \
                height="\(px: rowHeight - 12)"><title>\(row.label): interquartile range \
                \(UnitFormatting.duration(nanoseconds: fences.firstQuartile)) … \
                \(UnitFormatting.duration(nanoseconds: fences.thirdQuartile))</title></rect>\
                <line class="median" x1="\(px: scale(fences.median))" x2="\(px: scale(fences.median))" \
                y1="\(px: y + 3)" y2="\(px: y + rowHeight - 3)"><title>\(row.label): median \
                \(UnitFormatting.duration(nanoseconds: fences.median))</title></line>
                """
            for (index, sample) in row.samples.enumerated() where sample.isFinite {
                let x = scale(sample)
                let cy = middle + ChartParts.jitter(index) * (rowHeight / 2 - 8)
                let value = UnitFormatting.duration(nanoseconds: sample)
                switch fences.classify(sample) {
                case .normal:
                    out +=
                        "<circle class=\"pt \(row.style)\" cx=\"\(px: x)\" cy=\"\(px: cy)\" r=\"2.5\"><title>sample \(index + 1): \(value)</title></circle>"
                case .mild:
                    counts.mild += 1
                    out += """
                        <path class="outlier-mild" d="M\(px: x) \(px: cy - 4)l4 4l-4 4l-4 -4z">\
                        <title>sample \(index + 1): \(value) (mild outlier)</title></path>
                        """
                case .severe:
                    counts.severe += 1
                    out += """
                        <path class="outlier-severe" d="M\(px: x - 4) \(px: cy - 4)l8 8m0 -8l-8 8">\
                        <title>sample \(index + 1): \(value) (severe outlier)</title></path>
                        """
                }
            }
        }
        let legendY = plotBottom + 44
        out += """
            <g class="legend"><circle class="pt" cx="\(px: labelWidth)" cy="\(px: legendY - 4)" r="2.5"/>\
            <text x="\(px: labelWidth + 8)" y="\(px: legendY)">sample</text>\
            <path class="outlier-mild" d="M\(px: labelWidth + 70) \(px: legendY - 8)l4 4l-4 4l-4 -4z"/>\
            <text x="\(px: labelWidth + 78)" y="\(px: legendY)">mild outlier (\(counts.mild))</text>\
            <path class="outlier-severe" d="M\(px: labelWidth + 186) \(px: legendY - 8)l8 8m0 -8l-8 8"/>\
            <text x="\(px: labelWidth + 198)" y="\(px: legendY)">severe outlier (\(counts.severe))</text>\
            <rect class="iqr" x="\(px: labelWidth + 316)" y="\(px: legendY - 9)" width="14" height="10"/>\
            <text x="\(px: labelWidth + 334)" y="\(px: legendY)">Q1–Q3, line = median</text></g></svg>
            """
        return out
    }
}
