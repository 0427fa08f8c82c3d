import ELFSymbols
import Foundation

/// Compares functions' machine code between two binaries of the same program (a base and a new
/// build). One comparer per pair: each binary's listing and the demangled names are cached.
package struct CompiledCodeComparer {
    /// Why the binaries cannot be compared at all (one line naming the file or the tool).
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        package enum Kind: Sendable, Equatable {
            case objdumpNotFound
            /// Not a readable ELF file, or one without a symbol table (stripped).
            case unreadableBinary
        }

        package var kind: Kind
        /// The binary it is about; nil for a missing tool.
        package var path: String?
        package var message: String
        package var description: String { message }
    }

    package let base: ExecutableDisassembler
    package let new: ExecutableDisassembler
    package var names: SwiftSymbolNames

    package init(
        basePath: String, newPath: String, objdumpPath: String? = nil, names: SwiftSymbolNames = SwiftSymbolNames()
    ) throws(Failure) {
        func open(_ path: String) throws(Failure) -> ExecutableDisassembler {
            guard FileManager.default.fileExists(atPath: path) else {
                throw Failure(kind: .unreadableBinary, path: path, message: "\(path): no such file")
            }
            do {
                return try ExecutableDisassembler(executablePath: path, objdumpPath: objdumpPath)
            } catch let failure as ExecutableDisassembler.Failure {
                throw Failure(kind: .objdumpNotFound, path: nil, message: failure.message)
            } catch {
                throw Failure(kind: .unreadableBinary, path: path, message: "\(error)")
            }
        }
        base = try open(basePath)
        new = try open(newPath)
        self.names = names
    }

    /// Compares `symbol` in the base binary with `newSymbol` (by default the same) in the new one.
    /// When the new binary lacks it, compares with the function that replaced it: a lost
    /// specialization's generic, else the function of the same name; when none, says it lacks it.
    package mutating func compare(_ symbol: String, newSymbol: String? = nil) -> CompiledCodeComparison {
        let readable = names.traits(of: symbol).readableName
        var comparison = CompiledCodeComparison(
            function: .init(symbol: symbol, name: readable), changes: [])
        guard base.hasFunction(symbol) else {
            comparison.changes = [.missing(symbol: symbol, side: .base)]
            return comparison
        }
        var target = newSymbol ?? symbol
        if !new.hasFunction(target) {
            guard newSymbol == nil, let (replacement, change) = replacement(of: symbol) else {
                comparison.changes = [.missing(symbol: target, side: .new)]
                return comparison
            }
            target = replacement
            comparison.changes.append(change)
        }
        switch (base.functionCode(symbol), new.functionCode(target)) {
        case (.success(let baseCode), .success(let newCode)):
            let baseBinary = base
            let newBinary = new
            comparison.changes += CompiledCodeComparison.changes(
                from: baseCode, to: newCode, names: &names, baseHas: { baseBinary.hasFunction($0) },
                newHas: { newBinary.hasFunction($0) }, newCode: { try? newBinary.functionCode($0).get() })
        case (.failure(let failure), _), (_, .failure(let failure)):
            comparison.changes.append(.unreadable(failure.message))
        }
        // A replacement is itself a change: "no code change" after it would mislead.
        if comparison.changes.count > 1 { comparison.changes.removeAll { $0 == .noCodeChange } }
        return comparison
    }

    /// Compares the new binary's `newSymbol` (a function a profile of the new build names) with the
    /// base's: the same symbol, else the base function of the same name it replaced (a generic
    /// specialization that now takes an existential, say), else says that only the new binary has it.
    package mutating func compare(newFunction newSymbol: String) -> CompiledCodeComparison {
        if base.hasFunction(newSymbol) { return compare(newSymbol) }
        let readable = names.traits(of: newSymbol).readableName
        guard let old = closestByName(to: newSymbol, in: base) else {
            return CompiledCodeComparison(
                function: .init(symbol: newSymbol, name: readable), changes: [.newInThisBuild])
        }
        var comparison = compare(old, newSymbol: newSymbol)
        comparison.function = .init(symbol: newSymbol, name: readable)
        comparison.changes.insert(.replacedInBase(.init(symbol: old, name: names.traits(of: old).readableName)), at: 0)
        comparison.changes.removeAll { $0 == .noCodeChange }
        return comparison
    }

    /// The new binary's function that replaced `symbol`: the generic a specialization was made
    /// from, else the closest function of the same name (`closestByName`).
    private mutating func replacement(of symbol: String) -> (String, CompiledCodeComparison.Change)? {
        let traits = names.traits(of: symbol)
        if traits.isSpecialization, let origin = traits.origin, new.hasFunction(origin) {
            let name = names.traits(of: origin).readableName
            return (origin, .specializationReplacedByGeneric(.init(symbol: origin, name: name)))
        }
        guard let best = closestByName(to: symbol, in: new) else { return nil }
        return (best, .replaced(by: .init(symbol: best, name: names.traits(of: best).readableName)))
    }

    /// Of `binary`'s other functions of `symbol`'s name (module, contexts and identifier), the one
    /// whose mangled name shares the longest prefix with it; on a tie a specialization (what ran: a
    /// generic original is kept for other modules), then the shorter name. One ranking for both sides.
    private mutating func closestByName(to symbol: String, in binary: ExecutableDisassembler) -> String? {
        guard let stem = Self.nameStem(symbol) else { return nil }
        let candidates = binary.functionNames(withPrefix: stem).filter { $0 != symbol }
        let traits = names.traits(of: candidates)
        return Self.closest(to: symbol, among: candidates) { traits[$0]?.isSpecialization == true }
    }

    /// The ranking of `closestByName`, over `candidates` (`isSpecialization` judging each).
    static func closest(to symbol: String, among candidates: [String], isSpecialization: (String) -> Bool)
        -> String?
    {
        let ranked = candidates.map {
            (name: $0, shared: commonPrefixLength($0, symbol), specialized: isSpecialization($0))
        }
        return ranked.max { a, b in
            if a.shared != b.shared { return a.shared < b.shared }
            if a.specialized != b.specialized { return !a.specialized }
            return a.name.count > b.name.count
        }?.name
    }

    /// The leading length-prefixed identifiers of a Swift symbol, "$s2t15totalySd…" → "$s2t15total":
    /// its module and the names of its contexts and itself (as far as they are plain identifiers).
    package static func nameStem(_ symbol: String) -> String? {
        guard symbol.hasPrefix("$s") else { return nil }
        var index = symbol.index(symbol.startIndex, offsetBy: 2)
        var identifiers = 0
        while index < symbol.endIndex, symbol[index].isNumber, symbol[index] != "0" {
            let digits = symbol[index...].prefix { $0.isNumber }
            guard let length = Int(digits),
                let end = symbol.index(index, offsetBy: digits.count + length, limitedBy: symbol.endIndex)
            else { break }
            index = end
            identifiers += 1
            // A context's kind (V struct, C class, O enum…) may follow before the next identifier.
            if index < symbol.endIndex, "VCOP".contains(symbol[index]),
                symbol.index(after: index) < symbol.endIndex, symbol[symbol.index(after: index)].isNumber
            {
                index = symbol.index(after: index)
            }
        }
        return identifiers >= 2 ? String(symbol[..<index]) : nil
    }

    private static func commonPrefixLength(_ a: String, _ b: String) -> Int {
        zip(a.utf8, b.utf8).prefix { $0 == $1 }.count
    }
}
