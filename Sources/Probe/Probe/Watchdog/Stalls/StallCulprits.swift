import Foundation
import Synchronization

/// The `culprit` dimension of `probe_stalls_total`: the innermost function of the service's own
/// code in the stall's dominant stack (the first part of its group key), short enough for a
/// dashboard's legend, and bounded per watchdog so that a service stalling in ever new places
/// cannot grow a metrics backend's series without end.
///
/// A Prometheus counter's labels are fixed once it exists, so the bound keeps the first `limit`
/// distinct culprits of a watchdog by name; later ones are counted as `other`. (Keeping the most
/// frequent instead would need to move counts between series, which a counter cannot.)
final class StallCulprits: Sendable {
    static let other = "other"
    /// Stalls whose stack had no function of the service's own code.
    static let unknown = "unknown"

    private let limit: Int
    private let named = Mutex<Set<String>>([])

    init(limit: Int) { self.limit = max(0, limit) }

    /// The label value for a stall with group key `groupKey`.
    func label(groupKey: String) -> String {
        let name = Self.shortName(groupKey: groupKey)
        if name == Self.unknown { return name }
        return named.withLock { named in
            if named.contains(name) { return name }
            guard named.count < limit else { return Self.other }
            named.insert(name)
            return name
        }
    }

    /// `watched_service.blockTheEventLoop(milliseconds:)` from the group key
    /// `watched_service.blockTheEventLoop(milliseconds: Swift.Int) -> () <- …`: the innermost
    /// frame, the function a closure or an async continuation belongs to, its argument labels
    /// without their types and no result type.
    static func shortName(groupKey: String) -> String {
        var first = Substring(groupKey)
        if let arrow = first.range(of: " <- ") { first = first[..<arrow.lowerBound] }
        if first.isEmpty || first == "no-stack" { return unknown }
        // "->" would read as a closing angle bracket: an arrow of its own while the name is taken apart.
        let working = first.replacingOccurrences(of: "->", with: "\u{2192}")
        return String(
            shortName(function: Substring(working)).replacingOccurrences(of: "\u{2192}", with: "->").prefix(160))
    }

    private static func shortName(function: Substring) -> String {
        var name = function
        // "closure #1 … in (1) suspend resume partial function for closure #2 … in App.f(x: Int) async -> ()"
        if let lastIn = lastTopLevel(" in ", in: name) { name = name[lastIn.upperBound...] }
        for prefix in [
            "partial apply forwarder for ", "merged ", "specialized ", "reabstraction thunk helper from ",
        ] where name.hasPrefix(prefix) {
            name = name.dropFirst(prefix.count)
        }
        if name.hasPrefix("("), let close = name.firstIndex(of: ")"),
            let rest = name[close...].range(of: " partial function for ")
        {
            name = name[rest.upperBound...]  // "(1) suspend resume partial function for App.f(…)"
        }
        // Up to the end of the top-level parameter list; labels without types.
        let paren: Character = "("
        guard let open = firstTopLevel(paren, in: name), let close = matchingClose(in: name, from: open) else {
            return String(name)
        }
        let parameters = splitTopLevel(name[name.index(after: open)..<close])
        let colon: Character = ":"
        let labels = parameters.map { parameter -> String in
            guard let at = firstTopLevel(colon, in: parameter) else { return "_:" }
            return parameter[..<at].trimmingSpaces() + ":"
        }
        let base = String(name[..<open])
        return base + "(" + labels.joined() + ")"
    }

    private static func depthChange(_ character: Character) -> Int {
        switch character {
        case "(", "<", "[": return 1
        case ")", ">", "]": return -1
        default: return 0
        }
    }

    /// The last occurrence of `needle` outside any brackets.
    private static func lastTopLevel(_ needle: String, in text: Substring) -> Range<Substring.Index>? {
        var depth = 0
        var found: Range<Substring.Index>?
        var index = text.startIndex
        while index < text.endIndex {
            if depth == 0, text[index...].hasPrefix(needle) {
                found = index..<text.index(index, offsetBy: needle.count)
            }
            depth += depthChange(text[index])
            index = text.index(after: index)
        }
        return found
    }

    private static func firstTopLevel(_ needle: Character, in text: Substring) -> Substring.Index? {
        var depth = 0
        for index in text.indices {
            if depth == 0, text[index] == needle { return index }
            depth += depthChange(text[index])
        }
        return nil
    }

    private static func matchingClose(in text: Substring, from open: Substring.Index) -> Substring.Index? {
        var depth = 0
        var index = open
        while index < text.endIndex {
            depth += depthChange(text[index])
            if depth == 0 { return index }
            index = text.index(after: index)
        }
        return nil
    }

    private static func splitTopLevel(_ text: Substring) -> [Substring] {
        guard !text.isEmpty else { return [] }
        var parts: [Substring] = []
        var depth = 0
        var start = text.startIndex
        for index in text.indices {
            if depth == 0, text[index] == "," {
                parts.append(text[start..<index])
                start = text.index(after: index)
            }
            depth += depthChange(text[index])
        }
        parts.append(text[start...])
        return parts
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
