import ProbeRecords

/// Call trees as the page shows them: several stalls' trees merged into one, and frames named
/// the way a reader recognises them.
enum CallTreeDisplay {
    /// Merges call trees (for a group of similar stalls) under one synthetic root whose count is
    /// the total number of samples. Children with the same frame are merged; children are ordered
    /// by sample count, largest first.
    static func merge(_ trees: [CallTreeNode]) -> CallTreeNode {
        var children: [CallTreeNode] = []
        var total = 0
        for tree in trees {
            total += tree.count
            // A frameless root is the aggregation's own root: its children are the real outermost frames.
            children += tree.frame == nil ? tree.children : [tree]
        }
        return CallTreeNode(frame: nil, count: total, children: mergeSiblings(children))
    }

    private static func mergeSiblings(_ nodes: [CallTreeNode]) -> [CallTreeNode] {
        var order: [String] = []
        var merged: [String: CallTreeNode] = [:]
        for node in nodes {
            let key = node.frame.map(identity) ?? "<no frame>"
            if var existing = merged[key] {
                existing.count += node.count
                existing.children += node.children
                merged[key] = existing
            } else {
                order.append(key)
                merged[key] = node
            }
        }
        return order.compactMap { merged[$0] }
            .map { CallTreeNode(frame: $0.frame, count: $0.count, children: mergeSiblings($0.children)) }
            .sorted { $0.count > $1.count }
    }

    /// What makes two frames "the same function" across stalls: the symbol when there is one,
    /// otherwise the module and offset, otherwise the address.
    static func identity(_ frame: StackFrame) -> String {
        if let symbol = frame.symbol { return "s:" + symbol }
        if let module = frame.module, let offset = frame.moduleOffset { return "m:\(module)+\(offset)" }
        return "a:\(frame.address)"
    }

    /// A short name for a frame: its demangled symbol, or module+offset, or the address.
    static func shortName(_ frame: StackFrame?) -> String {
        guard let frame else { return "all samples" }
        if let symbol = frame.symbol { return symbol }
        if let module = frame.module {
            let file = module.split(separator: "/").last.map(String.init) ?? module
            return "\(file)+0x\(String(frame.moduleOffset ?? 0, radix: 16))"
        }
        return "0x" + String(frame.address, radix: 16)
    }

    /// Everything known about a frame on one line: `[async]` for a logical caller from Swift's async
    /// chain, symbol+offset, module, source location, address.
    static func fullName(_ frame: StackFrame?) -> String {
        guard let frame else { return "all samples" }
        var text = (frame.async == true ? "[async] " : "") + shortName(frame)
        if frame.symbol != nil, let offset = frame.symbolOffset { text += " + 0x" + String(offset, radix: 16) }
        if let module = frame.module { text += " in " + module }
        if let file = frame.file { text += " at \(file)" + (frame.line.map { ":\($0)" } ?? "") }
        text += " [0x" + String(frame.address, radix: 16) + "]"
        return text
    }
}
