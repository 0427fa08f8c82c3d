import Foundation
import PerfReport
import ProbeRecords

/// Stalls over the run: one lane per watchdog, one box per stall from its start for its duration,
/// classified by colour and by a letter (C cpu-bound, B blocked, S starved, ? unknown) so the
/// class never depends on colour alone.
struct StallTimeline {
    var stalls: [StallRecord]
    /// Anchor of each stall's entry in the list below the chart, by index in `stalls`.
    var anchors: [String]
    /// Time zero of the chart: the run's start when every stall happened after it, else the first stall.
    var origin: Date
    var originName: String

    func render() -> Markup {
        guard !stalls.isEmpty else { return "" }
        let width = 760.0
        let labelWidth = 120.0
        let laneHeight = 26.0
        let top = 6.0
        var lanes: [String] = []
        for stall in stalls where !lanes.contains(stall.watchdog) { lanes.append(stall.watchdog) }
        let plotBottom = top + laneHeight * Double(lanes.count)
        let height = plotBottom + 56
        let ends = stalls.map { $0.start.timeIntervalSince(origin) * 1e9 + $0.durationNanoseconds }
        let scale = ChartScale(
            covering: [0] + ends, pixels: (labelWidth, width - 16), logarithmic: false, includeZero: true)
        var out = ChartParts.open(width: width, height: height, label: "Stalls over time, one lane per watchdog")
        out += ChartParts.horizontalAxis(
            scale, y: plotBottom, gridTop: top, format: UnitFormatting.durationTick(nanoseconds:),
            caption: "time since \(originName)")
        for (index, lane) in lanes.enumerated() {
            let y = top + laneHeight * Double(index)
            out += """
                <text x="\(px: labelWidth - 8)" y="\(px: y + laneHeight / 2 + 4)" text-anchor="end">\
                \(ChartParts.truncated(lane, limit: 17))<title>\(lane)</title></text>
                """
        }
        for (index, stall) in stalls.enumerated() {
            let lane = lanes.firstIndex(of: stall.watchdog) ?? 0
            let y = top + laneHeight * Double(lane) + 3
            let start = stall.start.timeIntervalSince(origin) * 1e9
            let x = scale(start)
            let boxWidth = max(3, scale(start + stall.durationNanoseconds) - x)
            let style = StallTimeline.style(stall.classification)
            let ongoing = stall.ongoing ? ", still ongoing" : ""
            out += """
                <a href="#\(anchors[index])"><g class="stall \(style.cssClass)"><title>\(stall.watchdog) \
                (thread \(Int(stall.threadID))): \(UnitFormatting.duration(nanoseconds: stall.durationNanoseconds)) \
                \(stall.classification.rawValue)\(ongoing), at +\(UnitFormatting.duration(nanoseconds: start))</title>\
                <rect x="\(px: x)" y="\(px: y)" width="\(px: boxWidth)" height="\(px: laneHeight - 6)"/>
                """
            if boxWidth >= 12 {
                out += "<text x=\"\(px: x + 3)\" y=\"\(px: y + 14)\">\(style.letter)</text>"
            }
            out += "</g></a>"
        }
        var legendX = labelWidth
        let legendY = plotBottom + 46
        for classification in [StallRecord.Classification.cpuBound, .blocked, .starved, .unknown] {
            let style = StallTimeline.style(classification)
            out += """
                <g class="legend stall \(style.cssClass)"><rect x="\(px: legendX)" y="\(px: legendY - 11)" \
                width="14" height="14"/><text x="\(px: legendX + 3)" y="\(px: legendY)">\(style.letter)</text>\
                <text class="legend-label" x="\(px: legendX + 20)" y="\(px: legendY)">\(classification.rawValue)</text></g>
                """
            legendX += 110
        }
        out += "</svg>"
        return out
    }

    static func style(_ classification: StallRecord.Classification) -> (letter: String, cssClass: String) {
        switch classification {
        case .cpuBound: return ("C", "c-cpu")
        case .blocked: return ("B", "c-blocked")
        case .starved: return ("S", "c-starved")
        case .parked: return ("P", "c-blocked")  // tasks waiting, as a blocked thread waits
        case .unknown: return ("?", "c-unknown")
        }
    }
}
