import Foundation

/// What changed in one function's machine code between a base and a new binary, as plain data
/// (`changes`) and worded one line per change (`lines`) or one line in all (`summary`). Wording
/// lives in `wording(of:)` only, so every caller says it the same way.
package struct CompiledCodeComparison: Sendable, Equatable {
    /// A function named in a change: its symbol and a readable name for the line.
    package struct Function: Sendable, Equatable, Hashable {
        package var symbol: String
        package var name: String
    }

    package enum Side: String, Sendable, Equatable { case base, new }

    package enum Change: Sendable, Equatable {
        /// That binary has no function of that name and none that replaced it.
        case missing(symbol: String, side: Side)
        /// The new binary lacks the specialization and has the generic it was made from: compared
        /// with that instead.
        case specializationReplacedByGeneric(Function)
        /// The new binary lacks the symbol; compared with the function of the same name it has.
        case replaced(by: Function)
        /// The base binary lacks the new function; compared with the base's function of the same
        /// name that it took the place of.
        case replacedInBase(Function)
        /// The base binary has no function of that name: code this build added.
        case newInThisBuild
        /// The code could not be read (architecture, objdump): nothing is claimed.
        case unreadable(String)
        /// Now calls an unspecialized generic entry point it did not call before.
        case callsUnspecializedGeneric(Function)
        case witnessTableCalls(base: Int, new: Int)
        case vtableCalls(base: Int, new: Int)
        /// Now calls a function of the new binary it did not call before, whose code the base
        /// function held (see `wasInlined`): a lost inlining.
        case noLongerInlined(Function)
        /// Now calls, `count` times, a function both binaries have that the base function did not
        /// call and shows no sign of having inlined: a new call, not a lost inlining.
        case newCall(Function, count: Int)
        /// Now calls a function that only the new binary has (added code, not a lost inlining).
        case callsNewFunction(Function)
        /// No longer calls a function it called before (now inlined, or no longer needed).
        case newlyInlined(Function)
        /// Call sites of a runtime function; `newInLoops` of the new ones are inside a loop.
        case runtimeCalls(RuntimeCall, base: Int, new: Int, newInLoops: Int)
        case size(base: Int, new: Int)
        /// Same size and calls, but other instructions (registers, constants, order).
        case instructionsDiffer(count: Int)
        /// Identical instructions: the cause is elsewhere.
        case noCodeChange
    }

    /// The base binary's symbol the comparison is of, and its readable name.
    package var function: Function
    package var changes: [Change]

    /// One line per change, each naming the function.
    package var lines: [String] { changes.map { "\(function.name): \(Self.wording(of: $0))" } }

    /// Every change in one line: "total(_:): now calls swift_beginAccess 2× (was 0: exclusivity
    /// check); 180 → 244 bytes".
    package var summary: String {
        "\(function.name): " + changes.map(Self.wording(of:)).joined(separator: "; ")
    }

    /// The words for `change`, without the function's name.
    package static func wording(of change: Change) -> String {
        switch change {
        case .missing(let symbol, let side):
            return "the \(side.rawValue) binary lacks \(symbol)"
        case .specializationReplacedByGeneric(let generic):
            return "specialization lost: the new binary has only the unspecialized \(generic.name), compared with it"
        case .replaced(let function):
            return
                "the new binary lacks this symbol; compared with \(function.name) (\(function.symbol)), which replaced it"
        case .newInThisBuild:
            return "new in this build (the base binary has no function of that name)"
        case .replacedInBase(let function):
            return "new in this build, in place of \(function.name) (\(function.symbol)); compared with it"
        case .unreadable(let reason):
            return "machine code not compared (\(reason))"
        case .callsUnspecializedGeneric(let callee):
            return "now calls the unspecialized generic \(callee.name) (specialization lost)"
        case .witnessTableCalls(let base, let new):
            return counted("calls through a witness table", base, new, reason: "generic or existential dispatch")
        case .vtableCalls(let base, let new):
            return counted("calls through a vtable", base, new, reason: "class method dispatch")
        case .noLongerInlined(let callee):
            return "no longer inlines \(callee.name): calls it now"
        case .callsNewFunction(let callee):
            return "now calls \(callee.name), which the base binary does not have"
        case .newCall(let callee, let count):
            return "now calls \(callee.name) \(count)× (was 0)"
        case .newlyInlined(let callee):
            return "no longer calls \(callee.name) (inlined now, or not needed)"
        case .runtimeCalls(let call, let base, let new, let inLoops):
            let loops = inLoops == 0 ? "" : inLoops == new ? ", in a loop" : ", \(inLoops) in a loop"
            return counted("calls \(call.rawValue)", base, new, reason: reason(for: call) + loops)
        case .size(let base, let new):
            return "\(base) → \(new) bytes"
        case .instructionsDiffer(let count):
            return "same size and calls; \(count) instruction(s) differ (registers, constants or order)"
        case .noCodeChange:
            return "no code change found: layout, data or the machine"
        }
    }

    /// "now calls swift_retain 3× (was 1: reference counting)"; a decrease reads "calls … 1× (was 3)".
    private static func counted(_ what: String, _ base: Int, _ new: Int, reason: String) -> String {
        new > base ? "now \(what) \(new)× (was \(base): \(reason))" : "\(what) \(new)× (was \(base))"
    }

    private static func reason(for call: RuntimeCall) -> String {
        switch call {
        case .retain, .release: "reference counting"
        case .allocObject: "heap allocation"
        case .beginAccess, .endAccess: "exclusivity check"
        }
    }

    /// The changes from `base` to `new` (the same function, or the one that replaced it). Callees
    /// are judged with `names`; `newHas`/`baseHas` say whether a binary has a function of that
    /// symbol (a callee called now but absent from the new binary is a library's, not inlined);
    /// `newCode` reads a callee's code in the new binary, the evidence of a lost inlining.
    package static func changes(
        from base: FunctionCode, to new: FunctionCode, names: inout SwiftSymbolNames,
        baseHas: (String) -> Bool, newHas: (String) -> Bool, newCode: (String) -> FunctionCode?
    ) -> [Change] {
        var changes: [Change] = []
        let baseCallees = Set(base.directCallees.keys).subtracting([base.symbol, new.symbol])
        let newCallees = Set(new.directCallees.keys).subtracting([base.symbol, new.symbol])
        let traits = names.traits(of: Array(baseCallees.union(newCallees)))
        func function(_ symbol: String) -> Function {
            Function(symbol: symbol, name: traits[symbol]?.readableName ?? symbol)
        }
        let added = newCallees.subtracting(baseCallees).sorted().filter { !isHelper($0) }
        let removed = baseCallees.subtracting(newCallees).sorted().filter { !isHelper($0) }
        for callee in added where traits[callee]?.isUnspecializedGeneric == true {
            changes.append(.callsUnspecializedGeneric(function(callee)))
        }
        if base.witnessTableCalls != new.witnessTableCalls {
            changes.append(.witnessTableCalls(base: base.witnessTableCalls, new: new.witnessTableCalls))
        }
        if base.vtableCalls != new.vtableCalls {
            changes.append(.vtableCalls(base: base.vtableCalls, new: new.vtableCalls))
        }
        for call in RuntimeCall.allCases where base.count(call) != new.count(call) {
            changes.append(
                .runtimeCalls(
                    call, base: base.count(call), new: new.count(call), newInLoops: new.countInLoops(call)))
        }
        for callee in added where traits[callee]?.isUnspecializedGeneric != true && newHas(callee) {
            if isRespecialization(callee, of: baseCallees, traits: traits) { continue }
            if !baseHas(callee) {
                changes.append(.callsNewFunction(function(callee)))
            } else if wasInlined(callee, from: base, to: new, calleeCode: newCode) {
                changes.append(.noLongerInlined(function(callee)))
            } else {
                changes.append(.newCall(function(callee), count: new.directCallees[callee] ?? 0))
            }
        }
        for callee in removed where baseHas(callee) {
            // A specialization the new code replaced by its generic is said by the line above.
            if let origin = traits[callee]?.origin, newCallees.contains(origin) { continue }
            if isRespecialization(callee, of: newCallees, traits: traits) { continue }
            changes.append(.newlyInlined(function(callee)))
        }
        if base.size != new.size { changes.append(.size(base: base.size, new: new.size)) }
        if changes.isEmpty {
            let differing =
                zip(base.shape, new.shape).filter { $0 != $1 }.count
                + abs(base.shape.count - new.shape.count)
            changes.append(
                differing == 0 && base.directCallees == new.directCallees
                    ? .noCodeChange
                    : .instructionsDiffer(count: differing))
        }
        return changes
    }

    /// Whether `base` held the code of `callee`, which `new` calls and `base` did not: `base` is
    /// larger, and either calls `callee`'s own callees more often than `new` does (they came with
    /// its inlined body) or, when `callee` calls nothing of its own, shrank by half its size or more.
    /// Without that evidence a new call is only a new call (a function the base never used).
    static func wasInlined(
        _ callee: String, from base: FunctionCode, to new: FunctionCode, calleeCode: (String) -> FunctionCode?
    ) -> Bool {
        guard base.size > new.size, let code = calleeCode(callee) else { return false }
        let own = code.directCallees.keys.filter { !isHelper($0) && ![callee, base.symbol, new.symbol].contains($0) }
        guard own.isEmpty else {
            return own.contains { (base.directCallees[$0] ?? 0) > (new.directCallees[$0] ?? 0) }
        }
        return code.size > 0 && 2 * (base.size - new.size) >= code.size
    }

    /// Runtime entry points (counted apart) and the compiler's helpers — outlined copies and
    /// destroys (`…WOb`, `…WOh`), `__swift_…` existential helpers, metadata accessors (`…Ma`) —
    /// whose calls come and go with the code around them: not a change of inlining.
    static func isHelper(_ symbol: String) -> Bool {
        symbol.hasPrefix("swift_") || symbol.hasPrefix("__swift_")
            || symbol.range(of: #"(WO[a-zA-Z]|Ma)$"#, options: .regularExpression) != nil
    }

    /// Another specialization of a generic the other side also called a specialization of (the
    /// same code for other types or another pass): not a change of inlining.
    private static func isRespecialization(
        _ callee: String, of others: Set<String>, traits: [String: SwiftSymbolNames.Traits]
    ) -> Bool {
        guard let origin = traits[callee]?.origin else { return false }
        return others.contains { traits[$0]?.origin == origin || $0 == origin }
    }
}
