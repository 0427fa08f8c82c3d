import CHarness
import Foundation
import PerfReport

/// Instructions by function and by call edge, read from callgrind dump parts and added up over the
/// samples of one benchmark; ``profile(iterations:)`` turns the sum into a per-operation
/// ``FunctionProfile``.
///
/// Names are merged across recursion levels (`rec'2` is `rec`) and objects; a call from a function
/// to itself is left out of inclusive costs, so recursion is not counted twice; so are the calls
/// into which collection was switched on (`calls=0`), so that `main` and the runner's frames around
/// the measured region do not crowd the top by inclusive cost.
package struct CallgrindCallGraph: Sendable, Equatable {
    /// Exclusive (self) instructions by function name.
    package var exclusive: [String: Double] = [:]
    /// Instructions spent in calls, by caller and callee name (the callee's inclusive cost).
    package var calls: [Edge: Double] = [:]

    package struct Edge: Hashable, Sendable {
        package var caller: String
        package var callee: String

        package init(caller: String, callee: String) {
            self.caller = caller
            self.callee = callee
        }
    }

    /// Compressed names (`fn=(12) name`, later `fn=(12)`), kept across the parts of one output
    /// file: callgrind may refer in a later part to a name it wrote in an earlier one.
    package struct NameTable: Sendable {
        // String keys: a Substring would keep its whole dump part alive.
        var functions: [String: String] = [:]
        package init() {}
    }

    package init() {}

    /// The cost lines of one dump part: `fn=`/`cfn=`/`calls=` with name compression; the cost
    /// line after `calls=` is the call's inclusive cost, every other cost line is its function's
    /// own. Only the `Ir` column is read.
    package init(parsing text: String, names: inout NameTable) throws(CallgrindDump.ParseError) {
        var positions = 1
        var irColumn: Int?
        var function: String?
        var callee: String?
        var pendingCall = false
        var countedCall = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let first = line.first else { continue }
            if first.isNumber || first == "+" || first == "-" || first == "*" {
                guard let irColumn, let function else { continue }
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                let index = positions + irColumn
                // Callgrind leaves trailing zero costs out.
                let cost = index < fields.count ? Double(fields[index]) ?? 0 : 0
                if pendingCall, let callee {
                    pendingCall = false
                    if countedCall, callee != function {
                        calls[Edge(caller: function, callee: callee), default: 0] += cost
                    }
                } else {
                    exclusive[function, default: 0] += cost
                }
            } else if line.hasPrefix("fn=") {
                function = Self.name(line.dropFirst(3), names: &names)
                pendingCall = false
            } else if line.hasPrefix("cfn=") {
                callee = Self.name(line.dropFirst(4), names: &names)
            } else if line.hasPrefix("calls=") {
                // `calls=0`: a call entered before collection was switched on (main, the runner's
                // frames around the region), context rather than work of the region.
                pendingCall = true
                countedCall = !line.dropFirst("calls=".count).hasPrefix("0 ")
            } else if line.hasPrefix("positions:") {
                positions = line.dropFirst("positions:".count).split(separator: " ").count
            } else if line.hasPrefix("events:") {
                let events = line.dropFirst("events:".count).split(separator: " ")
                irColumn = events.firstIndex(of: "Ir")
            }
        }
        guard irColumn != nil else {
            throw CallgrindDump.ParseError(kind: .missingLine, description: "no 'events:' line with Ir")
        }
    }

    /// `(id) name` defines, `(id)` refers, a bare name is itself; a recursion level (`'2`) is
    /// dropped so that every level is one function.
    static func name(_ field: Substring, names: inout NameTable) -> String {
        var raw: String
        if field.hasPrefix("("), let close = field.firstIndex(of: ")") {
            let id = String(field[...close])
            let rest = field[field.index(after: close)...].drop { $0 == " " }
            if rest.isEmpty {
                raw = names.functions[id] ?? id
            } else {
                raw = String(rest)
                names.functions[id] = raw
            }
        } else {
            raw = String(field)
        }
        if let quote = raw.lastIndex(of: "'"), quote != raw.startIndex,
            raw[raw.index(after: quote)...].allSatisfy(\.isNumber), raw.index(after: quote) != raw.endIndex
        {
            raw = String(raw[..<quote])
        }
        return raw
    }

    /// Adds another part's counts (the next sample of the same benchmark).
    package mutating func add(_ other: CallgrindCallGraph) {
        exclusive.merge(other.exclusive, uniquingKeysWith: +)
        calls.merge(other.calls, uniquingKeysWith: +)
    }

    /// Exclusive plus the calls to other functions, by name.
    package var inclusive: [String: Double] {
        var inclusive = exclusive
        for (edge, cost) in calls { inclusive[edge.caller, default: 0] += cost }
        return inclusive
    }

    /// Functions kept in a profile: the top by exclusive and the top by inclusive instructions.
    package static let keptByExclusive = 7
    package static let keptByInclusive = 4
    /// A function below this share of the region's instructions (exclusive and inclusive) is not kept.
    package static let smallestKeptShare = 0.002
    /// Call edges kept among them, largest first.
    package static let keptEdges = 10
    /// Longer names (C++ templates of the runtime) are cut here, the same way on every side.
    package static let longestName = 120

    /// The per-operation profile over `iterations` operations, names demangled, bounded to the
    /// functions and edges that matter (``keptByExclusive``, ``keptByInclusive``, ``keptEdges``).
    package func profile(iterations: Int) -> FunctionProfile {
        let perOperation = 1 / Double(max(iterations, 1))
        let inclusive = self.inclusive
        let total = exclusive.values.reduce(0, +)
        // Below a share of the whole, a function is the bracket's or a rounding's, not the work's.
        let smallest = max(total * Self.smallestKeptShare, .leastNonzeroMagnitude)
        let byExclusive = exclusive.filter { $0.value >= smallest }.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
        let byInclusive = inclusive.filter { $0.value >= smallest }.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
        var kept = Set(byExclusive.prefix(Self.keptByExclusive).map(\.key))
        kept.formUnion(byInclusive.prefix(Self.keptByInclusive).map(\.key))
        // A kept function that no kept function calls gets its heaviest caller too: a library
        // function that grew (String.lowercased) is explained by the code calling it, which the
        // compiled-code comparison then reads.
        var heaviestCaller: [String: (caller: String, cost: Double)] = [:]
        var calledByKept: Set<String> = []
        for (edge, cost) in calls where edge.caller != edge.callee {
            if kept.contains(edge.caller) { calledByKept.insert(edge.callee) }
            if cost > (heaviestCaller[edge.callee]?.cost ?? 0) { heaviestCaller[edge.callee] = (edge.caller, cost) }
        }
        for name in kept.subtracting(calledByKept) {
            if let caller = heaviestCaller[name]?.caller { kept.insert(caller) }
        }
        let names = kept.sorted { (inclusive[$0] ?? 0, $1) > (inclusive[$1] ?? 0, $0) }
        let index = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        let functions = names.map { name in
            let readable = Self.shortened(Self.demangle(name))
            return FunctionProfile.Function(
                name: readable, symbol: readable == name ? nil : name,
                exclusive: Self.rounded((exclusive[name] ?? 0) * perOperation),
                inclusive: Self.rounded((inclusive[name] ?? 0) * perOperation))
        }
        let edges = calls.compactMap { edge, cost -> FunctionProfile.Edge? in
            guard let caller = index[edge.caller], let callee = index[edge.callee], cost > 0 else { return nil }
            return FunctionProfile.Edge(caller: caller, callee: callee, inclusive: Self.rounded(cost * perOperation))
        }
        .sorted { ($0.inclusive, $1.caller, $1.callee) > ($1.inclusive, $0.caller, $0.callee) }
        let keptExclusive = names.reduce(0.0) { $0 + (exclusive[$1] ?? 0) }
        return FunctionProfile(
            functions: functions, edges: Array(edges.prefix(Self.keptEdges)),
            omittedExclusive: Self.rounded(max(0, total - keptExclusive) * perOperation))
    }

    /// Two digits after the point at most (a hundredth of an instruction per operation): the counts
    /// are exact, the report small.
    static func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }

    static func shortened(_ name: String) -> String {
        name.count <= longestName ? name : String(name.prefix(longestName - 1)) + "…"
    }

    /// Swift names through the runtime's demangler; others as they are.
    package static func demangle(_ name: String) -> String {
        guard name.hasPrefix("$s") || name.hasPrefix("_$s") || name.hasPrefix("$S") else { return name }
        return name.withCString { cName in
            guard let demangled = swift_demangle(cName, strlen(cName), nil, nil, 0) else { return name }
            defer { free(demangled) }
            return String(cString: demangled)
        }
    }
}
