import PerfReport
import Testing

@testable import DispatchBench
@testable import PerfMachineCode

/// Classifies the first function of `text`; the others are what `resolve` finds when the classifier
/// follows a tail jump or a call, as `ExecutableDisassembler` would disassemble them.
private func classify(_ text: String, _ fragments: [String] = ["4work"]) -> CompiledForm {
    let functions = Disassembly(objdumpOutput: text).functions
    return CompiledFormClassifier.classify(
        functions: Array(functions.prefix(1)), target: CallTarget(calleeFragments: fragments)
    ) { name in functions.filter { $0.symbol == name } }
}

@Suite struct AArch64DisassemblyTests {
    @Test func parsesInstructionsOperandsAndBranchTargets() throws {
        let listing = Disassembly(objdumpOutput: cannedAArch64Vtable)
        #expect(listing.architecture == .aarch64)
        #expect(
            listing.functions.map(\.symbol) == [
                "$s1m7kVtableySiSayAA4BaseCG_SitF", "$s1m11kVtableCopyySiSayAA4BaseCG_SitF",
                "$s1m7kVtableySiSayAA4BaseCG_SitFTm",
            ])
        let body = listing.functions[2].instructions
        func at(_ address: UInt64) throws -> Instruction { try #require(body.first { $0.address == address }) }

        let retain = try at(0x12dc)
        #expect(retain.isCall && !retain.isIndirectBranch && retain.symbol == "swift_retain@plt")
        #expect(!retain.symbolHasOffset)
        let call = try at(0x12e8)
        #expect(call.isCall && call.isIndirectBranch && call.operands == ["x25"])
        #expect(try at(0x12cc).operands == ["x21", "[x24, x8, lsl #3]"])
        #expect(try at(0x1288).operands == ["x29", "x30", "[sp, #-0x50]!"])
        #expect(try at(0x131c).operands == ["x29", "x30", "[sp]", "#0x50"])
        let loop = try at(0x12fc)
        #expect(loop.isJump && !loop.isIndirectBranch && loop.branchTarget == 0x12c4 && loop.symbolHasOffset)
        #expect(try at(0x12a0).branchTarget == 0x1324)  // tbnz x1, #0x3f, 0x1324
        let trap = try at(0x1324)
        #expect(trap.mnemonic == "brk" && !trap.isJump && !trap.isCall)
        let tail = try #require(listing.functions[0].instructions.first)
        #expect(tail.isJump && !tail.isIndirectBranch && tail.symbol == "$s1m11kVtableCopyySiSayAA4BaseCG_SitF")
    }

    /// `//` starts a comment on aarch64; `#` marks an immediate.
    @Test func commentsAndImmediates() throws {
        let functions = Disassembly(objdumpOutput: cannedAArch64Existential).functions
        let move = try #require(functions[0].instructions.first { $0.address == 0x1368 })
        #expect(move.mnemonic == "mov" && move.operands == ["w26", "#0x28"])
    }

    @Test func indirectTailCallIsABranchThroughARegister() throws {
        let functions = Disassembly(objdumpOutput: cannedAArch64IndirectTailCall).functions
        let branch = try #require(functions[0].instructions.last)
        #expect(branch.mnemonic == "br" && branch.isJump && !branch.isCall && branch.isIndirectBranch)
    }

    @Test func memoryOperands() throws {
        let slot = try #require(MemoryOperand(aarch64: "[x29, #-0x10]"))
        #expect(slot.base == "x29" && slot.displacement == -16 && slot.index == nil)
        let indexed = try #require(MemoryOperand(aarch64: "[x8, w9, sxtw #3]"))
        #expect(indexed.base == "x8" && indexed.index == "x9")
        #expect(MemoryOperand(aarch64: "[sp, #0x20]!")?.displacement == 32)
        #expect(MemoryOperand(aarch64: "[x0]")?.displacement == 0)
        #expect(MemoryOperand(aarch64: "[x8, #24]")?.displacement == 24)
        #expect(MemoryOperand(aarch64: "x8") == nil)
        #expect(AArch64Register.canonical("w13") == "x13" && AArch64Register.canonical("fp") == "x29")
        #expect(AArch64Register.canonical("xzr") == nil && AArch64Register.canonical("x31") == nil)
        #expect(AArch64Register.canonical("v0") == nil)
    }

    /// Instructions that write a register besides (or instead of) their first operand.
    @Test func writebackAndPairLoadsWriteRegisters() {
        func instruction(_ line: String) -> Instruction { Disassembly.parseInstruction(line, architecture: .aarch64)! }
        #expect(AArch64.writes(instruction("10: ldr x9, [x8], #0x8"), register: "x8"))
        #expect(AArch64.writes(instruction("10: ldr x9, [x8], #0x8"), register: "x9"))
        #expect(AArch64.writes(instruction("10: ldp x9, x10, [x8, #0x10]!"), register: "x10"))
        #expect(AArch64.writes(instruction("10: ldp x9, x10, [x8, #0x10]!"), register: "x8"))
        #expect(!AArch64.writes(instruction("10: str x9, [x8, #0x10]"), register: "x9"))
        #expect(AArch64.writes(instruction("10: stxr w11, x9, [x8]"), register: "x11"))
        #expect(!AArch64.writes(instruction("10: cmp x9, x8"), register: "x9"))
        #expect(AArch64.writes(instruction("10: bl 0x40 <f>"), register: "x17"))
        #expect(!AArch64.writes(instruction("10: bl 0x40 <f>"), register: "x19"))
        #expect(!AArch64.writes(instruction("10: tbl v0.16b, { v1.16b }, v2.16b"), register: "x0"))
    }

    @Test func architectureFromTheListing() {
        let header = "\nm:\tfile format elf64-littleaarch64\n\nDisassembly of section .text:\n\n"
        #expect(Disassembly(objdumpOutput: header + cannedAArch64Closure).architecture == .aarch64)
        #expect(Disassembly(objdumpOutput: cannedAArch64Closure).architecture == .aarch64)
        #expect(Disassembly(objdumpOutput: cannedVtable).architecture == .x86_64)
        let x86Header = "m:\tfile format elf64-x86-64\n"
        #expect(Disassembly(objdumpOutput: x86Header + cannedVtable).architecture == .x86_64)
        // A header wins over the syntax; the caller's architecture wins over both.
        #expect(Disassembly(objdumpOutput: x86Header + cannedAArch64Closure).architecture == .x86_64)
        #expect(Disassembly(objdumpOutput: cannedVtable, architecture: .aarch64).architecture == .aarch64)
        // A listing of another file than the one meant (as qemu-user's `/proc/<pid>/exe` gives
        // another process): nothing read.
        let other = Disassembly(objdumpOutput: x86Header + cannedVtable, architecture: .aarch64)
        #expect(other.architecture == nil && other.functions.allSatisfy(\.instructions.isEmpty))
        #expect(Architecture(elfMachine: 183) == .aarch64 && Architecture(elfMachine: 62) == .x86_64)
        #expect(Architecture(elfMachine: 243) == nil && Architecture.name(ofELFMachine: 243) == "riscv")
    }
}

@Suite struct AArch64ClassifierTests {
    @Test func vtableCallBehindTwoTailJumps() {
        let form = classify(cannedAArch64Vtable)
        #expect(form.kind == .vtable)
        #expect(form.symbol == "$s1m7kVtableySiSayAA4BaseCG_SitF")
        #expect(form.evidence.contains { $0.contains("tail-jumps to $s1m11kVtableCopyySiSayAA4BaseCG_SitF") })
        #expect(form.evidence.contains { $0.contains("tail-jumps to $s1m7kVtableySiSayAA4BaseCG_SitFTm") })
        #expect(form.evidence.contains { $0.hasPrefix("vtable call") && $0.hasSuffix("blr x25") })
        #expect(form.evidence.contains { $0.contains("2 swift_retain/swift_release") })
    }

    @Test func vtableCallOnOneReceiver() {
        #expect(classify(cannedAArch64VtableSingle).kind == .vtable)
    }

    @Test func witnessTableCallOnExistential() {
        let form = classify(cannedAArch64Existential)
        #expect(form.kind == .witnessTable)
        #expect(form.evidence.contains { $0.hasPrefix("witness-table call") && $0.hasSuffix("blr x8") })
    }

    /// The witness table comes in x3 and goes out in x2; the value witnesses' `blr x8` is no method call.
    @Test func witnessTableCallInUnspecialisedGenericIgnoringValueWitnesses() {
        let form = classify(cannedAArch64UnspecialisedGeneric)
        #expect(form.kind == .witnessTable)
        #expect(form.evidence.contains { $0.hasSuffix("blr x27") })
        #expect(!form.evidence.contains { $0.hasSuffix("blr x8") })
    }

    @Test func witnessTableCallBehindATailJump() {
        let form = classify(cannedAArch64ExistentialTailJump)
        #expect(form.kind == .witnessTable)
        #expect(form.evidence.contains { $0.contains("tail-jumps to $s1m6tExistySiAA1P_p_SitFTf4en_n") })
    }

    @Test func closureCallIsIndirect() {
        let form = classify(cannedAArch64Closure, [])
        #expect(form.kind == .indirect)
        #expect(form.evidence.contains { $0.hasSuffix("blr x21") })
    }

    /// `br` through a pointer passed in leaves the function for the callee: an indirect call.
    @Test func indirectTailCall() {
        let form = classify(cannedAArch64IndirectTailCall, [])
        #expect(form.kind == .indirect)
        #expect(form.evidence.contains { $0.hasSuffix("br x2") })
    }

    /// A jump table's `br` goes through a computed address: no call at all.
    @Test func jumpTableIsNoCall() {
        let text = """
            0000000000001000 <$s1m6switchyS2iF>:
                1000:      \tadrp\tx9, 0x2000 <$s1m6switchyS2iF+0x1000>
                1004:      \tadd\tx9, x9, #0x10
                1008:      \tldrsw\tx10, [x9, x0, lsl #2]
                100c:      \tadd\tx10, x9, x10
                1010:      \tbr\tx10
            """
        #expect(classify(text, []).kind == .inlined)
    }

    @Test func noCallMeansInlined() {
        let form = classify(cannedAArch64Inlined)
        #expect(form.kind == .inlined)
        #expect(form.evidence == ["no call to 4work in 22 instructions"])
    }

    @Test func directCall() {
        let form = classify(cannedAArch64Direct)
        #expect(form.kind == .direct)
        #expect(form.evidence.contains { $0.hasPrefix("direct call") && $0.contains("bl 0x125c <$s1m1FC4workyS2iF>") })
    }

    /// A call through a global function pointer (`adrp` + `ldr`) is a known address, not dispatch.
    @Test func callThroughAGlobalIsNotDynamic() {
        let text = """
            0000000000001000 <$s1m1fyyF>:
                1000:      \tadrp\tx8, 0x20000 <_GLOBAL_OFFSET_TABLE_+0x58>
                1004:      \tldr\tx8, [x8, #0xfe8]
                1008:      \tblr\tx8
            """
        #expect(classify(text).kind == .inlined)
    }

    @Test func objectFileCallsNeedTheirRelocations() {
        let form = classify(cannedAArch64ObjectWithRelocations)
        #expect(form.kind == .direct)
        #expect(form.evidence.contains { $0.contains("bl 0x344") })
        // Without `-r` the call targets itself: no callee to read, so no verdict.
        let unrelocated = cannedAArch64ObjectWithRelocations.split(separator: "\n")
            .filter { !$0.contains("R_AARCH64_") }.joined(separator: "\n")
        let bare = classify(unrelocated)
        #expect(bare.kind == .unknown && bare.isUnavailable)
        #expect(bare.evidence.first?.contains("without its relocations") == true)
    }

    /// A listing of another machine's code reads as no instruction at all, never as "inlined".
    @Test func anotherMachinesListingIsUnavailable() {
        let riscv = """

            m:\tfile format elf64-littleriscv

            0000000000001000 <$s1m7kernelyS2iF>:
                1000:      \tld\ta5, 0x0(a0)
                1004:      \tjalr\ta5
            """
        let listing = Disassembly(objdumpOutput: riscv)
        #expect(listing.architecture == nil)
        #expect(listing.functions.map(\.instructions.count) == [0])
        let form = classify(riscv)
        #expect(form.kind == .unknown)
        #expect(form.evidence.first?.hasPrefix("compiled form unavailable on this architecture") == true)
    }
}
