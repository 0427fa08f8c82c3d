import Foundation
import PerfMachineCode
import PerfReport

/// What to look for in a benchmark function: calls to the functions named by `calleeFragments`
/// (substrings of their mangled names), looking through direct calls to functions whose mangled
/// name starts with one of `follow` (a generic the kernel calls, a specialisation of it).
public struct CallTarget: Sendable {
    public var calleeFragments: [String]
    public var follow: [String]

    public init(calleeFragments: [String], follow: [String] = []) {
        self.calleeFragments = calleeFragments
        self.follow = follow
    }
}

/// Finds how a call was compiled by disassembling the function that contains it.
///
/// The classification comes from the instructions alone: a direct `call <callee>` (`bl` on
/// aarch64), no call at all (inlined), or an indirect `call *…` (`blr`, or `br` as a tail call)
/// whose function pointer is traced back to a vtable slot (loaded from the receiver's isa), a
/// witness-table slot (from a table passed along with the call), or anything else (a closure, a
/// function pointer). x86-64 and aarch64; other listings give `CompiledForm.unavailable`.
public struct CompiledFormClassifier {
    /// Classifies the call sites in already disassembled functions. `resolve` disassembles a
    /// function the kernel calls directly when `target.follow` says to look inside it.
    public static func classify(
        functions: [(symbol: String, instructions: [Instruction])], target: CallTarget,
        resolve: (String) -> [(symbol: String, instructions: [Instruction])] = { _ in [] }
    ) -> CompiledForm {
        guard let primary = functions.first?.symbol else {
            return CompiledForm(kind: .unknown, symbol: "", evidence: ["function not found in the binary"])
        }
        // No instruction read (another machine's code, or a listing the parser does not follow):
        // "no call in 0 instructions" would read as inlined.
        guard functions.contains(where: { !$0.instructions.isEmpty }) else {
            return .unavailable(
                symbol: primary, because: "no instruction of \(primary) could be read from llvm-objdump's listing")
        }
        var findings = Findings()
        var visited = Set(functions.map(\.symbol))
        var queue = functions.map { ($0, 0) }
        while !queue.isEmpty {
            let (function, depth) = queue.removeFirst()
            let body = FunctionBody(symbol: function.symbol, instructions: function.instructions)
            if function.instructions.indices.contains(where: body.isUnrelocatedCall) {
                let reason = "\(function.symbol) is from an object file listed without its relocations (-r)"
                return .unavailable(symbol: primary, because: reason)
            }
            findings.instructionCount += function.instructions.count
            for (index, instruction) in function.instructions.enumerated() {
                var callee: String?
                if instruction.isIndirectBranch {
                    switch body.indirectCallKind(at: index) {
                    case .knownSymbol(let name): callee = name
                    case .valueWitness: continue
                    case .vtable: findings.vtable.append(instruction.text)
                    case .witnessTable: findings.witness.append(instruction.text)
                    case .closureOrOther:
                        // A jump through a computed pointer may be a switch's jump table, not a call.
                        if instruction.isCall || body.isIndirectTailCall(at: index) {
                            findings.indirect.append(instruction.text)
                        }
                    }
                } else if instruction.isCall || instruction.isJump, !instruction.symbolHasOffset,
                    let symbol = instruction.symbol, symbol != function.symbol
                {
                    callee = symbol
                }
                guard let callee else { continue }
                if callee.hasPrefix("swift_retain") || callee.hasPrefix("swift_release") {
                    findings.referenceCounting += 1
                }
                // A whole-function `jmp` (`b`) to another function: the optimizer found this kernel's
                // code identical to that one and kept a single copy.
                let tailJump = instruction.isJump && !instruction.isIndirectBranch
                if target.calleeFragments.contains(where: { callee.contains($0) }) {
                    findings.direct.append(instruction.text)
                } else if depth < 3, !visited.contains(callee),
                    tailJump || target.follow.contains(where: { callee.hasPrefix($0) })
                        || isCompilerDerived(callee, from: primary)
                {
                    visited.insert(callee)
                    findings.followed.append(
                        tailJump ? "tail-jumps to \(callee) (identical code kept once)" : "looked into \(callee)")
                    queue += resolve(callee).map { ($0, depth + 1) }
                }
            }
        }
        return findings.compiledForm(symbol: primary, target: target)
    }

    /// A merged (`Tm`) or signature-specialised (`Tf…`) copy of `original` made by the optimizer.
    static func isCompilerDerived(_ symbol: String, from original: String) -> Bool {
        let stem = original.hasSuffix("Tm") ? String(original.dropLast(2)) : original
        return symbol.hasPrefix(stem) || (symbol.hasSuffix("Tm") && symbol.hasPrefix(modulePrefix(of: original)))
    }

    /// "$s13DispatchBench18kernel…" → "$s13DispatchBench".
    static func modulePrefix(of symbol: String) -> String {
        guard symbol.hasPrefix("$s") else { return symbol }
        let digits = symbol.dropFirst(2).prefix { $0.isNumber }
        guard let length = Int(digits) else { return symbol }
        return String(symbol.prefix(2 + digits.count + length))
    }

    private struct Findings {
        var vtable: [String] = []
        var witness: [String] = []
        var indirect: [String] = []
        var direct: [String] = []
        var followed: [String] = []
        var referenceCounting = 0
        var instructionCount = 0

        func compiledForm(symbol: String, target: CallTarget) -> CompiledForm {
            var evidence: [String] = []
            evidence += followed
            let kind: CompiledForm.Kind
            if !vtable.isEmpty {
                kind = .vtable
                evidence += vtable.prefix(3).map { "vtable call (slot loaded from the isa): \($0)" }
            } else if !witness.isEmpty {
                kind = .witnessTable
                evidence += witness.prefix(3).map { "witness-table call: \($0)" }
            } else if !direct.isEmpty {
                kind = .direct
            } else if !indirect.isEmpty {
                kind = .indirect
                evidence += indirect.prefix(3).map { "indirect call: \($0)" }
            } else {
                kind = .inlined
                let names = target.calleeFragments.joined(separator: " / ")
                evidence.append("no call to \(names.isEmpty ? "a callee" : names) in \(instructionCount) instructions")
            }
            if !direct.isEmpty {
                let note =
                    kind == .direct
                    ? "direct call" : "direct call next to the dynamic one (speculative devirtualisation)"
                evidence += direct.prefix(3).map { "\(note): \($0)" }
            }
            if referenceCounting > 0 {
                evidence.append("\(referenceCounting) swift_retain/swift_release call(s) in the loop's function")
            }
            return CompiledForm(kind: kind, symbol: symbol, evidence: evidence)
        }
    }
}
