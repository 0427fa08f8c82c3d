import Foundation

/// The Swift runtime calls a function's machine code is summarized by: reference counting,
/// allocation and exclusivity checks. Each covers its `_n`, unknown-object and bridge-object forms.
package enum RuntimeCall: String, Sendable, CaseIterable {
    case retain = "swift_retain"
    case release = "swift_release"
    case allocObject = "swift_allocObject"
    case beginAccess = "swift_beginAccess"
    case endAccess = "swift_endAccess"

    /// The runtime call `callee` is, if any: "swift_retain_n", "swift_unknownObjectRelease",
    /// "swift_bridgeObjectRetain", "swift_nonatomic_release"…
    package init?(callee: String) {
        guard callee.hasPrefix("swift_") else { return nil }
        let name = callee.lowercased()
        switch name {
        case _ where name.contains("retaincount"): return nil
        case _ where name.contains("retain"): self = .retain
        case _ where name.contains("release"): self = .release
        case "swift_allocobject": self = .allocObject
        case "swift_beginaccess": self = .beginAccess
        case "swift_endaccess": self = .endAccess
        default: return nil
        }
    }
}

/// One function's machine code in one binary, summarized: size and its calls by kind. Counts are
/// of call sites in the code (a call in a loop counts once), not of calls made at run time.
package struct FunctionCode: Sendable, Equatable {
    package var symbol: String
    /// From the symbol table (`st_size`), the bytes `llvm-objdump` listed.
    package var size: Int
    package var instructionCount: Int
    /// Call sites of each runtime function (tail jumps included); absent kinds are zero.
    package var runtimeCalls: [RuntimeCall: Int]
    /// Of `runtimeCalls`, the call sites inside a loop: between a backward branch within the
    /// function and its target. Such a call runs once per iteration.
    package var runtimeCallsInLoops: [RuntimeCall: Int]
    /// Indirect calls whose target was loaded from a witness table passed along with the call.
    package var witnessTableCalls: Int
    /// Indirect calls whose target was loaded from the receiver's class metadata (its isa).
    package var vtableCalls: Int
    /// Any other indirect call (a closure, a function pointer, a switch's tail call excluded).
    package var otherIndirectCalls: Int
    /// Call sites of each directly called function (runtime calls included), by symbol as the
    /// symbol table names it (`@plt` and version suffixes removed). Tail jumps count as calls.
    package var directCallees: [String: Int]
    /// The instructions without their addresses (mnemonic, operands, callee), to tell identical
    /// code from code that differs only in registers, constants or order.
    package var shape: [String]

    /// Summarizes `instructions` (one function, as `Disassembly` read it) of `size` bytes.
    package init(symbol: String, size: Int, instructions: [Instruction]) {
        self.symbol = symbol
        self.size = size
        instructionCount = instructions.count
        runtimeCalls = [:]
        runtimeCallsInLoops = [:]
        witnessTableCalls = 0
        vtableCalls = 0
        otherIndirectCalls = 0
        directCallees = [:]
        shape = instructions.map(Self.withoutAddresses)
        let body = FunctionBody(symbol: symbol, instructions: instructions)
        for (index, instruction) in instructions.enumerated() {
            var callee: String?
            if instruction.isIndirectBranch {
                switch body.indirectCallKind(at: index) {
                case .knownSymbol(let name): callee = name
                case .valueWitness: continue
                case .vtable: vtableCalls += 1
                case .witnessTable: witnessTableCalls += 1
                case .closureOrOther:
                    if instruction.isCall || body.isIndirectTailCall(at: index) { otherIndirectCalls += 1 }
                }
            } else if instruction.isCall || instruction.isJump, !instruction.symbolHasOffset,
                let symbol = instruction.symbol, symbol != self.symbol
            {
                callee = symbol
            }
            guard let callee = callee.map(Self.plainName), !callee.isEmpty, callee != symbol else { continue }
            directCallees[callee, default: 0] += 1
            guard let runtime = RuntimeCall(callee: callee) else { continue }
            runtimeCalls[runtime, default: 0] += 1
            if Self.isInLoop(index, of: instructions) { runtimeCallsInLoops[runtime, default: 0] += 1 }
        }
    }

    /// This function with the code of `copy` (an optimizer's copy of it that it calls) added in:
    /// sizes, instructions and call sites summed, the call to the copy removed.
    package func merging(_ copy: FunctionCode) -> FunctionCode {
        var merged = self
        merged.size += copy.size
        merged.instructionCount += copy.instructionCount
        merged.runtimeCalls.merge(copy.runtimeCalls, uniquingKeysWith: +)
        merged.runtimeCallsInLoops.merge(copy.runtimeCallsInLoops, uniquingKeysWith: +)
        merged.witnessTableCalls += copy.witnessTableCalls
        merged.vtableCalls += copy.vtableCalls
        merged.otherIndirectCalls += copy.otherIndirectCalls
        merged.directCallees.merge(copy.directCallees, uniquingKeysWith: +)
        merged.directCallees[copy.symbol] = nil
        merged.directCallees[symbol] = nil
        merged.shape += copy.shape
        return merged
    }

    /// Copies the optimizer made of this function and that it calls: a signature specialization
    /// (`…Tf4nn_n`) or another suffix on the same mangled name, with the thunk calling it.
    package var derivedCallees: [String] {
        directCallees.keys.filter { $0 != symbol && $0.hasPrefix(symbol) }.sorted()
    }

    /// An instruction as text without what moves with the layout: branch targets and rip-relative
    /// (or adrp page) addresses; a callee or global by its name instead.
    private static func withoutAddresses(_ instruction: Instruction) -> String {
        let operands: [String]
        if instruction.isCall || instruction.isJump {
            operands = []
        } else {
            operands = instruction.operands.map { operand in
                if operand.hasSuffix("(%rip)") { return "(%rip)" }
                return instruction.symbol != nil && operand.hasPrefix("0x") ? "" : operand
            }
        }
        return ([instruction.mnemonic] + operands + [instruction.symbol.map(plainName) ?? ""]).joined(separator: " ")
    }

    /// The direct callees that are unspecialized generic entry points (a generic function or a
    /// method of a generic type, not a specialization), with their call sites; judged by `names`.
    package func unspecializedGenericCalls(names: inout SwiftSymbolNames) -> [String: Int] {
        let traits = names.traits(of: Array(directCallees.keys))
        return directCallees.filter { traits[$0.key]?.isUnspecializedGeneric == true }
    }

    /// Call sites of `call` (zero when there are none).
    package func count(_ call: RuntimeCall) -> Int { runtimeCalls[call] ?? 0 }

    /// Call sites of `call` inside a loop.
    package func countInLoops(_ call: RuntimeCall) -> Int { runtimeCallsInLoops[call] ?? 0 }

    /// Whether a direct branch after `index` goes back to it or before it, inside the function.
    static func isInLoop(_ index: Int, of instructions: [Instruction]) -> Bool {
        guard let start = instructions.first?.address else { return false }
        let address = instructions[index].address
        return instructions[(index + 1)...].contains { jump in
            guard jump.isJump, !jump.isIndirectBranch, let target = jump.branchTarget else { return false }
            return target <= address && target >= start
        }
    }

    /// "swift_retain@plt" → "swift_retain"; "memcpy@GLIBC_2.14" → "memcpy"; a GOT slot's name too.
    package static func plainName(_ symbol: String) -> String {
        guard let at = symbol.firstIndex(of: "@") else { return symbol }
        return String(symbol[..<at])
    }
}

extension ExecutableDisassembler {
    /// Why a function's code could not be summarized.
    package struct CodeFailure: Error, Sendable, Equatable, CustomStringConvertible {
        package enum Kind: Sendable, Equatable {
            /// No function of that name (with a size) in the binary's symbol table.
            case symbolNotFound
            /// Machine code of an architecture perfkit does not read.
            case architectureNotRead
            /// llvm-objdump listed no instruction of it (or could not be run).
            case unreadable
        }

        package var kind: Kind
        package var message: String
        package var description: String { message }
    }

    /// Whether the binary has a function `symbol` with code (a size above zero).
    package func hasFunction(_ symbol: String) -> Bool { (symbols.function(named: symbol)?.size ?? 0) > 0 }

    /// Function symbols with code whose names start with `prefix`.
    package func functionNames(withPrefix prefix: String) -> [String] {
        symbols.functions(withPrefix: prefix).filter { $0.size > 0 }.map(\.name)
    }

    /// The summary of function `symbol`'s machine code in this binary.
    package func functionCode(_ symbol: String) -> Result<FunctionCode, CodeFailure> {
        guard let entry = symbols.function(named: symbol), entry.size > 0 else {
            return .failure(CodeFailure(kind: .symbolNotFound, message: "\(executablePath) lacks \(symbol)"))
        }
        guard architecture != nil else {
            return .failure(
                CodeFailure(
                    kind: .architectureNotRead,
                    message: "\(executablePath): \(machineName) machine code; perfkit reads x86-64 and aarch64 only"))
        }
        let instructions: [Instruction]
        do {
            instructions = try disassemble([symbol]).first?.instructions ?? []
        } catch {
            return .failure(CodeFailure(kind: .unreadable, message: "\(executablePath): \(error)"))
        }
        guard !instructions.isEmpty else {
            return .failure(
                CodeFailure(
                    kind: .unreadable, message: "\(executablePath): llvm-objdump listed no instruction of \(symbol)"))
        }
        var code = FunctionCode(symbol: symbol, size: Int(entry.size), instructions: instructions)
        // A thunk and the specialized body it calls are one function to whoever named it.
        for derived in code.derivedCallees {
            if case .success(let copy) = functionCode(derived) { code = code.merging(copy) }
        }
        return .success(code)
    }
}
