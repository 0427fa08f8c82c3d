/// One disassembled function and the backwards data-flow queries the classifier needs.
///
/// The analysis is deliberately simple: it scans backwards in address order (and around the
/// enclosing loop, for values defined later in the loop body), follows register moves and stack
/// spills, and stops at anything else. Kernels are small loops, where that is enough.
package struct FunctionBody {
    package let symbol: String
    package let instructions: [Instruction]
    package let architecture: Architecture
    /// Whether rbp (x29 on aarch64) is a frame pointer, so `disp(%rbp)` (`[x29, #disp]`) is a
    /// stack slot, or a general register.
    package let usesFramePointer: Bool

    package init(symbol: String, instructions: [Instruction]) {
        self.symbol = symbol
        self.instructions = instructions
        architecture = instructions.first?.architecture ?? .x86_64
        switch architecture {
        case .x86_64:
            usesFramePointer = instructions.contains {
                $0.mnemonic.hasPrefix("mov") && $0.operands == ["%rsp", "%rbp"]
            }
        case .aarch64:
            // `mov x29, sp`, or `add x29, sp, #0x40` when the frame record sits above the locals.
            usesFramePointer = instructions.contains {
                ($0.mnemonic == "mov" || $0.mnemonic == "add") && $0.operands.prefix(2) == ["x29", "sp"]
            }
        }
    }

    /// Indices to look at for the definition reaching `index`: backwards to the start, then
    /// backwards from the end of the innermost loop that contains `index`.
    private func scanOrder(before index: Int) -> [Int] {
        var order = Array((0..<index).reversed())
        let address = instructions[index].address
        if let loopEnd = instructions.indices.last(where: { j in
            j > index && instructions[j].isJump && !instructions[j].isIndirectBranch
                && (instructions[j].branchTarget ?? .max) <= address
        }) {
            order += ((index + 1)...loopEnd).reversed()
        }
        return order
    }

    private func writes(_ instruction: Instruction, register: String) -> Bool {
        switch architecture {
        case .x86_64: X86.writes(instruction, register: register)
        case .aarch64: AArch64.writes(instruction, register: register)
        }
    }

    func origin(ofRegister register: String, before index: Int, depth: Int = 0) -> ValueOrigin {
        guard depth < 10 else { return .computed }
        for j in scanOrder(before: index) where writes(instructions[j], register: register) {
            switch architecture {
            case .x86_64: return x86Origin(definedBy: j, depth: depth)
            case .aarch64: return aarch64Origin(of: register, definedBy: j, depth: depth)
            }
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
                guard let stored = storedRegister(by: instructions[j], into: memory) else { continue }
                return stored.map { origin(ofRegister: $0, before: j, depth: depth + 1) } ?? .computed
            }
            return .computed
        }
        let base = memory.base.map { origin(ofRegister: $0, before: index, depth: depth + 1) } ?? .computed
        // aarch64 reaches globals through `adrp` plus an offset: a load from a fixed address.
        if architecture == .aarch64, case .symbol(let address) = base, memory.index == nil {
            return .symbol(Self.offset(address, by: memory.displacement))
        }
        return .load(base: base, offset: memory.displacement, indexed: memory.index != nil)
    }

    private func isStackSlot(_ memory: MemoryOperand) -> Bool {
        switch architecture {
        case .x86_64: memory.index == nil && (memory.base == "rsp" || (memory.base == "rbp" && usesFramePointer))
        case .aarch64: memory.index == nil && (memory.base == "sp" || (memory.base == "x29" && usesFramePointer))
        }
    }

    /// The register `instruction` stores into the stack slot `memory` (`.some(nil)`: a value not in
    /// a register, such as `xzr` or an immediate); nil when it does not store there.
    private func storedRegister(by instruction: Instruction, into memory: MemoryOperand) -> String?? {
        switch architecture {
        case .x86_64:
            guard instruction.mnemonic.hasPrefix("mov"), instruction.operands.count == 2,
                MemoryOperand(instruction.operands[1]) == memory
            else { return nil }
            return .some(Register.canonical(instruction.operands[0]))
        case .aarch64:
            for (register, address) in AArch64.storedSlots(instruction) where address == memory {
                return .some(AArch64Register.canonical(register))
            }
            return nil
        }
    }

    /// What the indirect branch (`call *…`, `blr`, `br`) at `index` goes through.
    package func indirectCallKind(at index: Int) -> IndirectCallKind {
        guard let pointer = indirectTargetOrigin(at: index) else { return .closureOrOther }
        switch pointer {
        case .symbol(let name):
            return .knownSymbol(name)
        case .load(let table, _, _):
            // Type metadata's word at -8 is the value-witness table: copies and destroys, not a method.
            if case .load(_, let offset, _) = table, offset < 0 { return .valueWitness }
            // A table loaded from offset 0 of an object is its isa, i.e. class metadata: a vtable slot.
            if case .load(_, 0, false) = table { return .vtable }
            // Swift passes the witness table of `Self` along with a protocol requirement call.
            let arguments = architecture == .x86_64 ? Register.arguments : AArch64Register.arguments
            if arguments.contains(where: { origin(ofRegister: $0, before: index) == table }) {
                return .witnessTable
            }
            return .closureOrOther
        default:
            return .closureOrOther
        }
    }

    /// A `br` (aarch64) or `jmp *` (x86-64) through a function pointer the function received: a tail
    /// call, not a switch's jump table (whose target is computed), and never an inlined body.
    package func isIndirectTailCall(at index: Int) -> Bool {
        guard instructions[index].isJump, instructions[index].isIndirectBranch,
            case .argument = indirectTargetOrigin(at: index)
        else { return false }
        return true
    }

    /// A direct call to its own next instruction (x86-64) or to itself (aarch64): an object file's
    /// call not yet relocated, whose callee only a relocation line (`llvm-objdump -r`) names.
    package func isUnrelocatedCall(at index: Int) -> Bool {
        let instruction = instructions[index]
        guard instruction.isCall, !instruction.isIndirectBranch, instruction.symbol == symbol,
            let target = instruction.branchTarget
        else { return false }
        switch architecture {
        case .x86_64: return index + 1 < instructions.count && target == instructions[index + 1].address
        case .aarch64: return target == instruction.address
        }
    }

    private func indirectTargetOrigin(at index: Int) -> ValueOrigin? {
        guard let target = instructions[index].indirectTarget else { return nil }
        switch architecture {
        case .x86_64:
            let operand = String(target.dropFirst())
            if let register = Register.canonical(operand) { return origin(ofRegister: register, before: index) }
            if let memory = MemoryOperand(operand) { return origin(ofLoad: memory, at: index) }
            return nil
        case .aarch64:
            return AArch64Register.canonical(target).map { origin(ofRegister: $0, before: index) }
        }
    }

    private func x86Origin(definedBy j: Int, depth: Int) -> ValueOrigin {
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

    /// Moves, loads (`ldr`, `ldur`, one half of `ldp`) and the `adrp` (+ `add`) that address a global.
    private func aarch64Origin(of register: String, definedBy j: Int, depth: Int) -> ValueOrigin {
        let instruction = instructions[j]
        let operands = instruction.operands
        if instruction.isCall { return .computed }
        switch instruction.mnemonic {
        case "mov" where operands.count == 2:
            guard let source = AArch64Register.canonical(operands[1]), source != "sp" else { return .computed }
            return origin(ofRegister: source, before: j, depth: depth + 1)
        case _ where AArch64.loads.contains(instruction.mnemonic) && operands.count >= 2:
            guard AArch64Register.canonical(operands[0]) == register else { return .computed }
            if let memory = MemoryOperand(aarch64: operands[1]) {
                return origin(ofLoad: memory, at: j, depth: depth + 1)
            }
            // A literal-pool load, `ldr x8, 0x1234 <symbol>`.
            return instruction.symbol.map(ValueOrigin.symbol) ?? .computed
        case _ where AArch64.pairLoads.contains(instruction.mnemonic) && operands.count >= 3:
            guard let slot = operands.prefix(2).firstIndex(where: { AArch64Register.canonical($0) == register }),
                var memory = MemoryOperand(aarch64: operands[2])
            else { return .computed }
            let width = operands[0].hasPrefix("w") ? 4 : 8
            memory.displacement += slot * width
            return origin(ofLoad: memory, at: j, depth: depth + 1)
        case "adrp", "adr":
            // The page (or address) as a number: objdump's symbol for it names whatever starts there.
            return operands.count == 2 && operands[1].hasPrefix("0x") ? .symbol(operands[1]) : .computed
        case "add" where operands.count == 3 && operands[2].hasPrefix("#"):
            guard let source = AArch64Register.canonical(operands[1]), source != "sp",
                case .symbol(let page) = origin(ofRegister: source, before: j, depth: depth + 1),
                let offset = AArch64.immediate(operands[2])
            else { return .computed }
            return .symbol(Self.offset(page, by: offset))
        default:
            return .computed
        }
    }

    /// "0x20000" + 0xfe8 → "0x20fe8"; a name that is not an address gets "+0x…".
    private static func offset(_ symbol: String, by offset: Int) -> String {
        guard offset != 0 else { return symbol }
        if symbol.hasPrefix("0x"), let address = Int(symbol.dropFirst(2), radix: 16) {
            return "0x" + String(address + offset, radix: 16)
        }
        return symbol + (offset < 0 ? "-0x" : "+0x") + String(abs(offset), radix: 16)
    }
}

package enum IndirectCallKind: Equatable {
    case vtable, witnessTable, valueWitness, closureOrOther
    /// A call through a GOT slot or function-pointer constant: really a direct call to this symbol.
    case knownSymbol(String)
}

/// What an x86-64 instruction writes.
private enum X86 {
    static let nonWriting = ["cmp", "test", "bt", "j", "call", "push", "nop", "ret", "ud2", "ucomis", "comis"]

    static func writes(_ instruction: Instruction, register: String) -> Bool {
        if instruction.isCall { return Register.callerSaved.contains(register) }
        guard let last = instruction.operands.last, Register.canonical(last) == register else { return false }
        return !nonWriting.contains { instruction.mnemonic.hasPrefix($0) }
    }
}

/// What an aarch64 instruction reads from memory and writes to registers.
enum AArch64 {
    /// Loads of one register whose value may be a pointer (`ldrb`/`ldrh` and friends cannot be).
    static let loads: Set<String> = ["ldr", "ldur", "ldar", "ldapr", "ldapur", "ldrsw", "ldursw", "ldxr", "ldaxr"]
    static let pairLoads: Set<String> = ["ldp", "ldnp", "ldpsw", "ldxp", "ldaxp"]
    /// Instructions that write no general-purpose register (beyond a writeback, handled apart).
    static let nonWriting: Set<String> = [
        "cmp", "cmn", "tst", "ccmp", "ccmn", "fcmp", "fcmpe", "nop", "prfm", "prfum", "dmb", "dsb", "isb",
        "hint", "bti", "brk", "udf", "hlt", "svc", "yield", "clrex", "paciasp", "autiasp", "pacibsp",
        "autibsp", "msr",
    ]

    static func writes(_ instruction: Instruction, register: String) -> Bool {
        if instruction.isCall { return AArch64Register.callerSaved.contains(register) }
        if instruction.isJump || instruction.mnemonic.hasPrefix("ret") { return false }
        let operands = instruction.operands
        // `[x8, #16]!` and `[x8], #16` also move their base register.
        if let address = operands.firstIndex(where: { $0.hasPrefix("[") }),
            MemoryOperand.aarch64PreIndexed(operands[address]) || address < operands.count - 1,
            MemoryOperand(aarch64: operands[address])?.base == register
        {
            return true
        }
        let mnemonic = instruction.mnemonic
        if nonWriting.contains(mnemonic) { return false }
        if mnemonic.hasPrefix("st") {
            // Stores write no register, except the exclusive ones' status result.
            let exclusive = mnemonic.hasPrefix("stx") || mnemonic.hasPrefix("stlx")
            return exclusive && operands.first.flatMap(AArch64Register.canonical) == register
        }
        if pairLoads.contains(mnemonic) {
            return operands.prefix(2).contains { AArch64Register.canonical($0) == register }
        }
        return operands.first.flatMap(AArch64Register.canonical) == register
    }

    /// The (register, stack address) pairs a store writes: `str x8, [sp, #0x10]`, both halves of
    /// `stp x8, x9, [sp, #0x10]`.
    static func storedSlots(_ instruction: Instruction) -> [(String, MemoryOperand)] {
        let operands = instruction.operands
        switch instruction.mnemonic {
        case "str", "stur":
            guard operands.count >= 2, let memory = MemoryOperand(aarch64: operands[1]) else { return [] }
            return [(operands[0], memory)]
        case "stp", "stnp":
            guard operands.count >= 3, let memory = MemoryOperand(aarch64: operands[2]) else { return [] }
            var second = memory
            second.displacement += operands[0].hasPrefix("w") ? 4 : 8
            return [(operands[0], memory), (operands[1], second)]
        default:
            return []
        }
    }

    /// "#0x58" → 88, "#-0x8" → -8, "#16" → 16.
    static func immediate(_ text: String) -> Int? {
        guard text.hasPrefix("#") else { return nil }
        let digits = text.dropFirst()
        let negative = digits.hasPrefix("-")
        let magnitude = digits.dropFirst(negative ? 1 : 0)
        let value = magnitude.hasPrefix("0x") ? Int(magnitude.dropFirst(2), radix: 16) : Int(magnitude)
        return value.map { negative ? -$0 : $0 }
    }
}
