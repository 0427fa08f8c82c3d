import ArgumentParser
import ProbeRecords

/// A stall and its number in the file: 1 for the first record, as `perfkit symbolicate` and
/// `perfkit stalls --list` count them.
struct NumberedStall {
    var number: Int
    var record: StallRecord

    /// `stall 3: main, 238 ms, cpu-bound` (and the pool threads of a pool starvation).
    var label: String {
        let milliseconds = Int((record.durationNanoseconds / 1e6).rounded())
        let threads = record.threads.map { ", \($0.count) pool threads" } ?? ""
        return "stall \(number): \(record.watchdog), \(milliseconds) ms, \(record.classification.rawValue)\(threads)"
    }
}

/// How `perfkit stalls` keeps the stalls of a file apart in a flame graph: not at all (one graph
/// of every sample), or by watchdog, by group key or stall by stall.
enum StallSplit: String, ExpressibleByArgument, CaseIterable {
    case none, watchdog, group, stall

    /// Stalls that are shown together, under a name.
    struct StallSet {
        /// `watchdog main`, `group <key>` or `stall 3: …`; nil for `none`.
        var name: String?
        var stalls: [NumberedStall]
    }

    /// The stalls in sets, in the order of each set's first stall in the file.
    func sets(_ stalls: [NumberedStall]) -> [StallSet] {
        switch self {
        case .none: return [StallSet(name: nil, stalls: stalls)]
        case .stall: return stalls.map { StallSet(name: $0.label, stalls: [$0]) }
        case .watchdog: return Self.grouped(stalls) { "watchdog \($0.record.watchdog)" }
        case .group: return Self.grouped(stalls) { "group \($0.record.groupKey)" }
        }
    }

    private static func grouped(_ stalls: [NumberedStall], by name: (NumberedStall) -> String) -> [StallSet] {
        var order: [String] = []
        var members: [String: [NumberedStall]] = [:]
        for stall in stalls {
            let key = name(stall)
            if members[key] == nil { order.append(key) }
            members[key, default: []].append(stall)
        }
        return order.map { StallSet(name: $0, stalls: members[$0]!) }
    }
}
