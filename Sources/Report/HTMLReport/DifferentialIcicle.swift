import PerfReport

/// A call tree measured twice (a baseline and a candidate), for a differential flame graph: each
/// node's inclusive cost on both sides, in one unit (instructions or seconds per operation).
struct DifferentialTree: Equatable {
    var name: String
    var base: Double
    var new: Double
    var children: [DifferentialTree] = []

    /// The tree of folded stacks (outermost frame first), each with its cost on both sides; a stack
    /// present on one side only has 0 on the other. Children are ordered by name, as flame graphs
    /// are, so the two sides' boxes stay where the eye expects them.
    init(root name: String, stacks: [(frames: [String], base: Double, new: Double)]) {
        self.init(name: name, base: 0, new: 0)
        for stack in stacks where stack.base.isFinite && stack.new.isFinite {
            add(stack.frames[...], base: max(0, stack.base), new: max(0, stack.new))
        }
        sortChildren()
    }

    init(name: String, base: Double, new: Double, children: [DifferentialTree] = []) {
        self.name = name
        self.base = base
        self.new = new
        self.children = children
    }

    private mutating func add(_ frames: ArraySlice<String>, base: Double, new: Double) {
        self.base += base
        self.new += new
        guard let first = frames.first else { return }
        if let index = children.firstIndex(where: { $0.name == first }) {
            children[index].add(frames.dropFirst(), base: base, new: new)
        } else {
            var child = DifferentialTree(name: first, base: 0, new: 0)
            child.add(frames.dropFirst(), base: base, new: new)
            children.append(child)
        }
    }

    private mutating func sortChildren() {
        children.sort { $0.name < $1.name }
        for index in children.indices { children[index].sortChildren() }
    }

    var depth: Int { 1 + (children.map(\.depth).max() ?? 0) }
}

/// A differential flame graph drawn top-down, as Gregg's: box widths are the candidate's cost (a
/// frame the candidate no longer reaches has no box; the shrunk list beside the graph names it),
/// colour is the change of the frame's own cost against the baseline's total — red grew, blue
/// shrank, white unchanged. Each box's `<title>` says both values; readable without JavaScript.
struct DifferentialIcicle {
    var title: String
    var tree: DifferentialTree
    /// Formats a cost for the boxes' titles (e.g. "1,204 instructions").
    var format: (Double) -> String
    /// The change (as a share of the baseline total) drawn fully saturated: a function that grew
    /// by 5% of the whole benchmark is as red as it gets; smaller moves are lighter.
    var saturation = 0.05

    private let width = 760.0
    private let rowHeight = 18.0
    private static let maximumDepth = 48

    func render() -> Markup {
        guard tree.new > 0 else { return "<p class=\"muted\">Nothing measured in the candidate.</p>" }
        let depth = min(tree.depth, Self.maximumDepth)
        var out = ChartParts.open(width: width, height: rowHeight * Double(depth) + 4, label: title)
        draw(tree, x: 0, width: width, depth: 0, scale: width / tree.new, into: &out)
        out += "</svg>"
        return out
    }

    private func draw(
        _ node: DifferentialTree, x: Double, width: Double, depth: Int, scale: Double, into out: inout Markup
    ) {
        guard depth < Self.maximumDepth, width >= 0.5, node.new > 0 else { return }
        let y = Double(depth) * rowHeight
        let ownBase = node.base - node.children.reduce(0) { $0 + $1.base }
        let ownNew = node.new - node.children.reduce(0) { $0 + $1.new }
        let change = (ownNew - ownBase) / max(tree.base, .leastNonzeroMagnitude)
        let intensity = min(1, abs(change) / saturation)
        // 255 → 80 in the other two channels: white to a clear red (grew) or blue (shrank).
        let fade = Int((255 - 175 * intensity).rounded())
        let fill = change >= 0 ? "rgb(255,\(fade),\(fade))" : "rgb(\(fade),\(fade),255)"
        let title =
            "\(node.name) — base \(format(node.base)), new \(format(node.new)) (own: \(format(ownBase)) → \(format(ownNew)))"
        out += """
            <g class="frame diff"><title>\(title)</title><rect x="\(px: x + 0.5)" \
            y="\(px: y + 0.5)" width="\(px: max(0, width - 1))" height="\(px: rowHeight - 1)" fill="\(fill)"/>
            """
        out += ChartParts.boxLabel(node.name, x: x, y: y, width: width)
        out += "</g>"
        var childX = x
        for child in node.children {
            let childWidth = child.new * scale
            draw(
                child, x: childX, width: min(childWidth, x + width - childX), depth: depth + 1, scale: scale, into: &out
            )
            childX += childWidth
        }
    }
}
