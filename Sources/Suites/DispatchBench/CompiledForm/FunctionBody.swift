/// One disassembled function and the backwards data-flow queries the classifier needs.
///
/// The analysis is deliberately simple: it scans backwards in address order (and around the
/// enclosing loop, for values defined later in the loop body), follows register moves and stack
/// spills, and stops at anything else. Kernels are small loops, where that is enough.
struct FunctionBody {
    let symbol: String
    let instructions: [Instruction]
    /// Whether rbp is a frame pointer (then `disp(%rbp)` is a stack slot) or a general register.
    let usesFramePointer: Bool

    init(symbol: String, instructions: [Instruction]) {
        self.symbol = symbol
        self.instructions = instructions
        usesFramePointer = instructions.contains { $0.mnemonic.hasPrefix("mov") && $0.operands == ["%rsp", "%rbp"] }
    }

    /// Indices to look at for the definition reaching `index`: backwards to the start, then
    /// backwards from the end of the innermost loop that contains `index`.
    private func scanOrder(before index: Int) -> [Int] {
        var order = Array((0..<index).reversed())
        let address = instructions[index].address
        if let loopEnd = instructions.indices.last(where: { j in
            j > index && instructions[j].isJump && !instructions[j].isIndirectBranch
                && (instructions[j].operands.first.flatMap { UInt64($0.dropFirst(2), radix: 16) } ?? .max) <= address
        }) {
            order += ((index + 1)...loopEnd).reversed()
        }
        return order
    }

    private static let nonWriting = ["cmp", "test", "bt", "j", "call", "push", "nop", "ret", "ud2", "ucomis", "comis"]

    private func writes(_ instruction: Instruction, register: String) -> Bool {
        if instruction.isCall { return Register.callerSaved.contains(register) }
        guard let last = instruction.operands.last, Register.canonical(last) == register else { return false }
        return !Self.nonWriting.contains { instruction.mnemonic.hasPrefix($0) }
    }

    func origin(ofRegister register: String, before index: Int, depth: Int = 0) -> ValueOrigin {
        guard depth < 10 else { return .computed }
        for j in scanOrder(before: index) where writes(instructions[j], register: register) {
            let instruction = instructions[j]
            guard instruction.mnemonic.hasPrefix("mov"), !instruction.mnemonic.hasPrefix("movabs"),
                !instruction.mnemonic.hasPrefix("movz"), !instruction.mnemonic.hasPrefix("movs"),
                instruction.operands.count == 2
            else {
                if instruction.mnemonic.hasPrefix("lea"), let symbol = instruction.symbol,
                    MemoryOperand(instruction.operands[0])?.base == "rip"
                {
                    return .symbol(symbol)
                }
                return .computed
            }
            let source = instruction.operands[0]
            if let sourceRegister = Register.canonical(source) {
                return origin(ofRegister: sourceRegister, before: j, depth: depth + 1)
            }
            if let memory = MemoryOperand(source) {
                return origin(ofLoad: memory, at: j, depth: depth + 1)
            }
            return .computed
        }
        return .argument(register)
    }

    func origin(ofLoad memory: MemoryOperand, at index: Int, depth: Int = 0) -> ValueOrigin {
        guard depth < 10 else { return .computed }
        if memory.base == "rip" {
            return instructions[index].symbol.map(ValueOrigin.symbol) ?? .computed
        }
        if isStackSlot(memory) {
            for j in scanOrder(before: index) {
                let instruction = instructions[j]
                guard instruction.mnemonic.hasPrefix("mov"), instruction.operands.count == 2,
                    MemoryOperand(instruction.operands[1]) == memory
                else { continue }
                guard let stored = Register.canonical(instruction.operands[0]) else { return .computed }
                return origin(ofRegister: stored, before: j, depth: depth + 1)
            }
            return .computed
        }
        let base = memory.base.map { origin(ofRegister: $0, before: index, depth: depth + 1) } ?? .computed
        return .load(base: base, offset: memory.displacement, indexed: memory.index != nil)
    }

    private func isStackSlot(_ memory: MemoryOperand) -> Bool {
        memory.index == nil && (memory.base == "rsp" || (memory.base == "rbp" && usesFramePointer))
    }

    /// What an indirect `call *…` at `index` calls through.
    func indirectCallKind(at index: Int) -> IndirectCallKind {
        let operand = String(instructions[index].operands[0].dropFirst())
        let pointer: ValueOrigin
        if let register = Register.canonical(operand) {
            pointer = origin(ofRegister: register, before: index)
        } else if let memory = MemoryOperand(operand) {
            pointer = origin(ofLoad: memory, at: index)
        } else {
            return .closureOrOther
        }
        switch pointer {
        case .symbol(let name):
            return .knownSymbol(name)
        case .load(let table, _, _):
            // Type metadata's word at -8 is the value-witness table: copies and destroys, not a method.
            if case .load(_, let offset, _) = table, offset < 0 { return .valueWitness }
            // A table loaded from offset 0 of an object is its isa, i.e. class metadata: a vtable slot.
            if case .load(_, 0, false) = table { return .vtable }
            // Swift passes the witness table of `Self` along with a protocol requirement call.
            if Register.arguments.contains(where: { origin(ofRegister: $0, before: index) == table }) {
                return .witnessTable
            }
            return .closureOrOther
        default:
            return .closureOrOther
        }
    }
}

enum IndirectCallKind: Equatable {
    case vtable, witnessTable, valueWitness, closureOrOther
    /// A call through a GOT slot or function-pointer constant: really a direct call to this symbol.
    case knownSymbol(String)
}
