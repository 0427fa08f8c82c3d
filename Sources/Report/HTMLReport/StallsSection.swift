import PerfReport
import ProbeRecords

/// Watchdog stalls: a timeline over the run, a table of every stall, and per group of similar
/// stalls (same group key) a flame graph of the merged sampled stacks plus the same tree as text.
struct StallsSection {
    var page: PageContext
    var stalls: [StallRecord]

    func render() -> Markup {
        let ordered = stalls.sorted { $0.start < $1.start }
        let anchors = ordered.indices.map { "s\($0)" }
        guard let first = ordered.first?.start else { return "" }
        let runStart = page.report.createdAt
        let fromRun = runStart <= first
        let origin = fromRun ? runStart : first
        var out = StallTimeline(
            stalls: ordered, anchors: anchors, origin: origin,
            originName: fromRun ? "the run started" : "the first stall"
        ).render()
        out += """
            <table class="sortable" id="stall-table"><thead><tr><th class="num">At</th><th>Watchdog</th>\
            <th class="num">Thread</th><th class="num">Duration</th><th>Class</th><th class="num">Thread CPU</th>\
            <th class="num">Samples</th><th>States</th><th>Top frame</th></tr></thead><tbody>
            """
        for (index, stall) in ordered.enumerated() {
            let at = stall.start.timeIntervalSince(origin) * 1e9
            let states = Dictionary(grouping: stall.threadStates, by: { $0 }).map { "\($0.key)×\($0.value.count)" }
                .sorted()
                .joined(separator: " ")
            let top = stall.topStack.first.map { CallTreeDisplay.shortName($0) } ?? "—"
            let style = StallTimeline.style(stall.classification)
            out += """
                <tr id="\(anchors[index])"><td class="num" data-value="\(value: at)">+\(UnitFormatting.duration(nanoseconds: at))</td>\
                <td class="nowrap">\(stall.watchdog)</td><td class="num">\(Int(stall.threadID))</td>\
                <td class="num" data-value="\(value: stall.durationNanoseconds)">\(UnitFormatting.duration(nanoseconds: stall.durationNanoseconds))\
                \(stall.ongoing ? " (ongoing)" : "")</td>\
                <td class="nowrap">\(style.letter) \(stall.classification.rawValue)</td>\
                <td class="num">\(stall.threadCPUNanoseconds.map { UnitFormatting.duration(nanoseconds: $0) } ?? "—")</td>\
                <td class="num">\(stall.sampleCount)\(stall.unansweredSamples > 0 ? " (\(stall.unansweredSamples) unanswered)" : "")\
                \(stall.unsampled != nil ? " (ended between looks)" : "")</td>\
                <td class="mono">\(states)</td><td class="mono name">\(top)</td></tr>
                """
        }
        out += "</tbody></table>"
        var keys: [String] = []
        for stall in ordered where !keys.contains(stall.groupKey) { keys.append(stall.groupKey) }
        for (index, key) in keys.enumerated() {
            let members = ordered.filter { $0.groupKey == key }
            let total = members.reduce(0) { $0 + $1.durationNanoseconds }
            let trees = members.compactMap(\.callTree)
            out += """
                <details class="stall-group"\(index < 3 ? " open" : "" as Markup)><summary>\
                \(members.count) stall\(members.count == 1 ? "" : "s"), \(UnitFormatting.duration(nanoseconds: total)) \
                in total — <span class="mono">\(key)</span></summary>
                """
            if trees.isEmpty {
                let why = members.compactMap(\.unsampled).first.map { ": \($0)" } ?? ""
                out += "<p class=\"muted\">No stacks were sampled for these stalls\(why).</p>"
            } else {
                let root = CallTreeDisplay.merge(trees)
                out += IcicleChart(title: "Sampled stacks of \(key) (outermost frame on top)", root: root).render()
                out +=
                    "<h3>Call tree as text (samples, share, frame)</h3><pre class=\"tree\">\(StallsSection.treeText(root))</pre>"
            }
            if let longest = members.max(by: { $0.durationNanoseconds < $1.durationNanoseconds }),
                !longest.topStack.isEmpty
            {
                out += "<h3>Most frequent stack of the longest stall (innermost first)</h3><ol class=\"mono small\">"
                for frame in longest.topStack { out += "<li>\(CallTreeDisplay.fullName(frame))</li>" }
                out += "</ol>"
            }
            out += "</details>"
        }
        return out
    }

    /// The call tree as indented text, one frame per line with its full name. Deep or wide trees
    /// are cut at 2,000 lines, which the text says.
    static func treeText(_ root: CallTreeNode) -> String {
        var lines: [String] = []
        let total = Double(max(root.count, 1))
        func visit(_ node: CallTreeNode, depth: Int) {
            guard lines.count < 2000 else { return }
            let count = String(node.count).leftPadded(to: 6)
            let share = UnitFormatting.percent(Double(node.count) / total).leftPadded(to: 8)
            lines.append(
                "\(count) \(share)  \(String(repeating: "  ", count: depth))\(CallTreeDisplay.fullName(node.frame))")
            for child in node.children { visit(child, depth: depth + 1) }
        }
        visit(root, depth: 0)
        if lines.count >= 2000 { lines.append("… (cut at 2000 lines)") }
        return lines.joined(separator: "\n")
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
