import PerfReport
/// Median time per operation against the benchmark's parameter (the problem size) on log–log
/// axes, one line per benchmark of the group, with the confidence interval as error bars. A
/// straight line's slope is the growth exponent: 1 is linear, 2 quadratic.
struct ScalingChart {
    struct Point {
        var size: Double
        var median: Double
        var lower: Double
        var upper: Double
    }

    struct Series {
        var name: String
        var points: [Point]
    }

    var title: String
    var series: [Series]

    /// Marker shapes so the lines differ by more than colour.
    private static let markers = ["circle", "square", "triangle", "diamond"]

    func render() -> Markup {
        let series = series.map { s in
            Series(name: s.name, points: s.points.filter { $0.size > 0 && $0.median > 0 }.sorted { $0.size < $1.size })
        }.filter { $0.points.count >= 2 }
        guard !series.isEmpty else { return "" }
        let width = 560.0
        let height = 320.0
        let left = 70.0
        let right = width - 24
        let top = 10.0
        let bottom = height - 44 - 16 * Double((series.count + 1) / 2)
        let points = series.flatMap(\.points)
        let x = ChartScale(covering: points.map(\.size), pixels: (left, right), logarithmic: true)
        let y = ChartScale(
            covering: points.flatMap { [$0.median, $0.lower, $0.upper] }, pixels: (bottom, top), logarithmic: true)
        var out = ChartParts.open(width: width, height: height, label: title)
        out += ChartParts.verticalAxis(y, x: left, gridRight: right, format: UnitFormatting.durationTick(nanoseconds:))
        out += ChartParts.horizontalAxis(
            x, y: bottom, gridTop: top, format: UnitFormatting.countTick, caption: "parameter (size), log scale")
        for (index, line) in series.enumerated() {
            let style = "series\(index % 6)"
            let path = line.points.enumerated().map { i, p in
                "\(i == 0 ? "M" : "L")\(HTMLEscaping.coordinate(x(p.size))) \(HTMLEscaping.coordinate(y(p.median)))"
            }.joined(separator: " ")
            out += "<g class=\"\(style)\"><path class=\"line\" d=\"\(path)\"/>"
            for point in line.points {
                let px = x(point.size)
                let py = y(point.median)
                out += """
                    <g><title>\(line.name) [\(UnitFormatting.count(point.size))]: median \
                    \(UnitFormatting.duration(nanoseconds: point.median)), 95% CI \
                    \(UnitFormatting.duration(nanoseconds: point.lower)) … \
                    \(UnitFormatting.duration(nanoseconds: point.upper))</title>\
                    <line class="whisker" x1="\(px: px)" x2="\(px: px)" y1="\(px: y(point.lower))" \
                    y2="\(px: y(point.upper))"/>\(marker(index, x: px, y: py))</g>
                    """
            }
            out += "</g>"
            let legendX = left + Double(index % 2) * 240
            let legendY = bottom + 44 + 16 * Double(index / 2)
            out += """
                <g class="legend \(style)">\(marker(index, x: legendX, y: legendY - 4))\
                <text x="\(px: legendX + 10)" y="\(px: legendY)">\
                \(ChartParts.truncated(line.name, limit: 34))</text></g>
                """
        }
        out += "</svg>"
        return out
    }

    private func marker(_ index: Int, x: Double, y: Double) -> Markup {
        switch ScalingChart.markers[index % ScalingChart.markers.count] {
        case "square":
            return "<rect class=\"marker\" x=\"\(px: x - 3.5)\" y=\"\(px: y - 3.5)\" width=\"7\" height=\"7\"/>"
        case "triangle":
            return "<path class=\"marker\" d=\"M\(px: x) \(px: y - 4.5)l4.5 8h-9z\"/>"
        case "diamond":
            return "<path class=\"marker\" d=\"M\(px: x) \(px: y - 5)l5 5l-5 5l-5 -5z\"/>"
        default:
            return "<circle class=\"marker\" cx=\"\(px: x)\" cy=\"\(px: y)\" r=\"4\"/>"
        }
    }
}
