import PerfReport
import ProbeRecords

/// A flame graph drawn top-down (an icicle): the outermost frame on top, each callee below its
/// caller, widths proportional to the number of samples. Every box carries the full demangled
/// frame name in a `<title>` (shown on hover); the same tree is also printed as text next to it.
struct IcicleChart {
    var title: String
    var root: CallTreeNode

    private let width = 760.0
    private let rowHeight = 18.0
    private static let maximumDepth = 48

    func render() -> Markup {
        guard root.count > 0 else { return "<p class=\"muted\">No samples.</p>" }
        let depth = min(IcicleChart.depth(of: root), IcicleChart.maximumDepth)
        let height = rowHeight * Double(depth) + 4
        var out = ChartParts.open(width: width, height: height, label: title)
        draw(root, x: 0, width: width, depth: 0, total: Double(root.count), into: &out)
        out += "</svg>"
        return out
    }

    private func draw(_ node: CallTreeNode, x: Double, width: Double, depth: Int, total: Double, into out: inout Markup)
    {
        guard depth < IcicleChart.maximumDepth, width >= 0.5 else { return }
        let y = Double(depth) * rowHeight
        let share = Double(node.count) / total
        let name = CallTreeDisplay.shortName(node.frame)
        // Colour varies with the name (warm hues, like a flame graph) but carries no meaning.
        let hue = node.frame == nil ? 0 : IcicleChart.hash(name) % 5
        out += """
            <g class="frame f\(hue)"><title>\(CallTreeDisplay.fullName(node.frame)) — \(node.count) \
            samples (\(UnitFormatting.percent(share)))</title><rect x="\(px: x + 0.5)" y="\(px: y + 0.5)" \
            width="\(px: max(0, width - 1))" height="\(px: rowHeight - 1)"/>
            """
        out += ChartParts.boxLabel(name, x: x, y: y, width: width)
        out += "</g>"
        var childX = x
        for child in node.children {
            let childWidth = width * Double(child.count) / Double(max(node.count, 1))
            draw(
                child, x: childX, width: min(childWidth, x + width - childX), depth: depth + 1, total: total, into: &out
            )
            childX += childWidth
        }
    }

    static func depth(of node: CallTreeNode) -> Int {
        1 + (node.children.map { depth(of: $0) }.max() ?? 0)
    }

    /// A small stable hash (FNV-1a) so a function keeps its colour across stalls and runs.
    static func hash(_ text: String) -> Int {
        var value: UInt32 = 2_166_136_261
        for byte in text.utf8 {
            value ^= UInt32(byte)
            value = value &* 16_777_619
        }
        return Int(value % 1024)
    }
}
