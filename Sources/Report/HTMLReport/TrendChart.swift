import Foundation
import PerfkitHistory
import PerfReport

/// One series over commits: each run a dot at its commit's place along the first-parent history
/// (runs of one commit stacked at one x, whiskers for their 95% intervals where the metric has
/// them), each change point a dashed vertical marker at its commit labelled with the shift, and
/// the levels before and after it as horizontal segments over the commits they span, with the
/// level's interval as a light band.
///
/// x is the order of the commits measured, not their distance: unmeasured commits take no room
/// (a change's sentence says how many lie in its gap).
struct TrendChart {
    var series: HistorySeries
    /// The changes found in this series, in any order.
    var changes: [HistoryChange]

    /// The most runs one chart draws (the newest). A thousand series of a long history must stay a
    /// page a browser opens: each run costs about 120 bytes of SVG, so a thousand full charts are
    /// about 15 MB.
    static let maxRuns = 120

    /// The runs drawn: the newest `maxRuns`, whole commits only (unless one commit alone has more).
    var drawn: ArraySlice<HistorySeries.Point> {
        let points = series.points
        guard points.count > Self.maxRuns else { return points[...] }
        var start = points.count - Self.maxRuns
        let cut = points[start].commit
        while start < points.count, points[start].commit == cut, start > 0, points[start - 1].commit == cut {
            start += 1
        }
        return start < points.count ? points[start...] : points.suffix(Self.maxRuns)
    }

    func render() -> Markup {
        let drawn = drawn
        guard let first = drawn.first else { return "" }
        let metric = series.metric.reportMetric
        let width = 760.0
        let left = 84.0
        let right = width - 16
        let top = 22.0
        let bottom = 142.0
        let height = bottom + 34

        // x: one slot per commit drawn, in order.
        var slots: [String: Int] = [:]
        var commits: [HistorySeries.Point] = []
        for point in drawn where slots[point.commit] == nil {
            slots[point.commit] = commits.count
            commits.append(point)
        }
        let inset = 10.0
        let step = commits.count > 1 ? (right - left - 2 * inset) / Double(commits.count - 1) : 0
        func x(_ slot: Int) -> Double { commits.count > 1 ? left + inset + step * Double(slot) : (left + right) / 2 }

        let levels = Self.levels(of: changes)
        var values = drawn.flatMap { [$0.value, $0.lower ?? .nan, $0.upper ?? .nan] }
        for level in levels where slots[level.lastCommit] != nil {
            values += [level.mean, level.lower, level.upper]
        }
        let scale = ChartScale(covering: values, pixels: (bottom, top), logarithmic: false)
        let label = "\(series.benchmark): \(metric.displayName) on \(series.machine.label) over commits"
        var out = ChartParts.open(width: width, height: height, label: label)
        out += ChartParts.verticalAxis(scale, x: left, gridRight: right, format: Self.tickFormat(metric, scale))
        out +=
            "<g class=\"axis\"><line x1=\"\(px: left)\" x2=\"\(px: right)\" y1=\"\(px: bottom)\" y2=\"\(px: bottom)\"/>"
        out += """
            <text x="\(px: x(0))" y="\(px: bottom + 14)" text-anchor="\(commits.count > 1 ? "start" : "middle")">\
            \(HistoryWording.short(first.commit))</text>
            """
        if commits.count > 1, let last = commits.last {
            out += """
                <text x="\(px: x(commits.count - 1))" y="\(px: bottom + 14)" text-anchor="end">\
                \(HistoryWording.short(last.commit))</text>
                """
        }
        out += """
            <text class="caption" x="\(px: (left + right) / 2)" y="\(px: bottom + 28)" text-anchor="middle">\
            commits along the first-parent history, oldest left</text></g>
            """

        // Levels under everything: the band of the level's mean interval, then its mean.
        for level in levels {
            guard let end = slots[level.lastCommit] else { continue }
            let start = slots[level.firstCommit] ?? 0
            let x1 = x(start) - min(step / 2, inset)
            let x2 = x(end) + min(step / 2, inset)
            let (yUpper, yLower) = (scale(level.upper), scale(level.lower))
            out += """
                <g class="level"><title>level \(metric.formatted(level.mean)) over \(level.runs) \
                run\(level.runs == 1 ? "" : "s")</title><rect class="level-band" x="\(px: x1)" y="\(px: yUpper)" \
                width="\(px: max(0, x2 - x1))" height="\(px: max(0, yLower - yUpper))"/>\
                <line class="level-mean" x1="\(px: x1)" x2="\(px: x2)" y1="\(px: scale(level.mean))" \
                y2="\(px: scale(level.mean))"/></g>
                """
        }
        for change in changes {
            guard let slot = slots[change.commit] else { continue }
            let style = change.isMachineShift ? "machine" : change.isRegression ? "regression" : "improvement"
            out += """
                <g class="change \(style)" data-commit="\(change.commit)"><title>\(HistoryWording.headline(change)); \
                \(HistoryWording.place(change))</title><line class="marker" x1="\(px: x(slot))" x2="\(px: x(slot))" \
                y1="\(px: top - 4)" y2="\(px: bottom)"/><text x="\(px: x(slot))" y="\(px: top - 8)" \
                text-anchor="middle">\(HistoryWording.shift(change))</text></g>
                """
        }
        // The runs, one group per commit: its title lists every run's value. Styled by the
        // enclosing group's class, not per element: these are most of the page's bytes.
        out += "<g class=\"runs\">"
        var index = drawn.startIndex
        while index < drawn.endIndex {
            let commit = drawn[index].commit
            var end = index
            while end < drawn.endIndex, drawn[end].commit == commit { end += 1 }
            let runs = drawn[index..<end]
            let cx = x(slots[commit]!)
            let valuesText = runs.map { point in
                let interval =
                    point.lower.flatMap { lower in
                        point.upper.map { " [\(metric.formatted(lower))–\(metric.formatted($0))]" }
                    } ?? ""
                return metric.formatted(point.value) + interval
            }
            out += """
                <g><title>\(HistoryWording.short(commit)) (#\(drawn[index].position)): \
                \(valuesText.joined(separator: ", "))</title>
                """
            var whiskers = ""
            for point in runs {
                if let lower = point.lower, let upper = point.upper, lower.isFinite, upper.isFinite, upper > lower {
                    whiskers +=
                        "M\(HTMLEscaping.coordinate(cx)) \(HTMLEscaping.coordinate(scale(upper)))"
                        + "V\(HTMLEscaping.coordinate(scale(lower)))"
                }
            }
            if !whiskers.isEmpty { out += "<path d=\"\(whiskers)\"/>" }
            for point in runs {
                out += "<circle cx=\"\(px: cx)\" cy=\"\(px: scale(point.value))\" r=\"2.6\"/>"
            }
            out += "</g>"
            index = end
        }
        out += "</g></svg>"
        return out
    }

    /// The levels the changes compare, each once (one change's after is the next one's before).
    static func levels(of changes: [HistoryChange]) -> [HistoryChange.Level] {
        var seen: Set<String> = []
        var levels: [HistoryChange.Level] = []
        for level in changes.flatMap({ [$0.before, $0.after] })
        where seen.insert("\(level.firstCommit) \(level.lastCommit)").inserted {
            levels.append(level)
        }
        return levels
    }

    /// Tick labels in the metric's unit with as many decimals as the tick step needs: a trend
    /// spans a few percent, where three significant digits would print one label five times.
    static func tickFormat(_ metric: Metric, _ scale: ChartScale) -> (Double) -> String {
        let ticks = scale.ticks()
        let step = ticks.count > 1 ? ticks[1] - ticks[0] : max(abs(scale.upper), 1)
        let magnitude = max(abs(scale.lower), abs(scale.upper))
        let units: [(Double, String)]
        switch metric {
        case .wallTime, .cpuTime: units = [(1e9, " s"), (1e6, " ms"), (1e3, " µs"), (1, " ns")]
        default: units = [(1e9, "G"), (1e6, "M"), (1e3, "k"), (1, "")]
        }
        let (divisor, suffix) = units.first { magnitude >= $0.0 } ?? units[units.count - 1]
        let decimals = max(0, min(6, Int(ceil(-log10(step / divisor) - 1e-9))))
        return { value in String(format: "%.\(decimals)f", value / divisor) + suffix }
    }
}
