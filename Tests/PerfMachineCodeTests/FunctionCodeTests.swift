import Testing

@testable import PerfMachineCode

/// `FunctionCode` over canned listings: aarch64 here (the compiled tests run on x86-64 only).
@Suite struct FunctionCodeTests {
    static let aarch64Listing = """
        m:	file format elf64-littleaarch64

        0000000000001000 <$s1m3sumyS2iF>:
            1000:      	stp	x29, x30, [sp, #-0x10]!
            1004:      	mov	x29, sp
            1008:      	bl	0x2000 <swift_retain@plt>
            100c:      	ldr	x8, [x20]
            1010:      	ldr	x8, [x8, #0x58]
            1014:      	blr	x8
            1018:      	bl	0x2010 <swift_release@plt>
            101c:      	bl	0x2020 <swift_beginAccess@plt>
            1020:      	ldp	x29, x30, [sp], #0x10
            1024:      	b	0x3000 <$s1m4doneyyF>
        """

    @Test func countsCallsByKindOnAArch64() throws {
        let listing = Disassembly(objdumpOutput: Self.aarch64Listing)
        #expect(listing.architecture == .aarch64)
        let function = try #require(listing.functions.first)
        let code = FunctionCode(symbol: function.symbol, size: 0x28, instructions: function.instructions)
        #expect(code.count(.retain) == 1 && code.count(.release) == 1 && code.count(.beginAccess) == 1)
        #expect(code.vtableCalls == 1 && code.witnessTableCalls == 0)
        // The tail branch to another function is a call.
        #expect(code.directCallees["$s1m4doneyyF"] == 1)
        #expect(code.directCallees["swift_retain"] == 1)
        // No branch goes back: nothing is in a loop.
        #expect(code.runtimeCallsInLoops.isEmpty)
    }

    @Test func callsBetweenABackwardBranchAndItsTargetAreInALoop() throws {
        let listing = Disassembly(
            objdumpOutput: """
                0000000000001000 <$s1m4bumpyS2iF>:
                    1000:      	pushq	%rbp
                    1001:      	movq	%rsp, %rbp
                    1004:      	callq	0x2000 <swift_beginAccess@plt>
                    1009:      	incq	%rbx
                    100c:      	callq	0x2000 <swift_beginAccess@plt>
                    1011:      	cmpq	%rbx, %r14
                    1014:      	jne	0x1009 <$s1m4bumpyS2iF+0x9>
                    1016:      	popq	%rbp
                    1017:      	retq
                """, architecture: .x86_64)
        let function = try #require(listing.functions.first)
        let code = FunctionCode(symbol: function.symbol, size: 0x18, instructions: function.instructions)
        #expect(code.count(.beginAccess) == 2 && code.countInLoops(.beginAccess) == 1)
    }

    @Test func thunkAndItsCopyAreOneFunction() {
        let thunk = FunctionCode(symbol: "$s1m1fyyF", size: 8, instructions: [])
        var withCall = thunk
        withCall.directCallees = ["$s1m1fyyFTf4n_n": 1]
        var copy = FunctionCode(symbol: "$s1m1fyyFTf4n_n", size: 40, instructions: [])
        copy.runtimeCalls = [.retain: 2]
        #expect(withCall.derivedCallees == ["$s1m1fyyFTf4n_n"])
        let merged = withCall.merging(copy)
        #expect(merged.size == 48 && merged.count(.retain) == 2 && merged.directCallees.isEmpty)
    }
}
