import Foundation
import PerfReport
import Testing

@testable import DispatchBench
@testable import PerfMachineCode

private func classify(_ text: String, _ fragments: [String] = ["4work"]) -> CompiledForm {
    CompiledFormClassifier.classify(
        functions: Disassembly(objdumpOutput: text).functions, target: CallTarget(calleeFragments: fragments))
}

@Suite struct CannedDisassemblyTests {
    @Test func parsesInstructionsAndSymbols() throws {
        let functions = Disassembly(objdumpOutput: cannedVtable).functions
        #expect(functions.map(\.symbol) == ["$s1m7kVtableySiSayAA4BaseCG_SitF"])
        let retain = try #require(functions[0].instructions.first { $0.symbol == "swift_retain@plt" })
        #expect(retain.isCall && !retain.isIndirectBranch && !retain.symbolHasOffset)
        let load = try #require(functions[0].instructions.first { $0.operands == ["0x20(%rbx,%rax,8)", "%r13"] })
        #expect(load.mnemonic == "movq")
    }

    @Test func vtableCallThroughHoistedSlot() {
        let form = classify(cannedVtable)
        #expect(form.kind == .vtable)
        #expect(form.evidence.contains { $0.contains("callq *%r14") })
    }

    @Test func witnessTableCallOnExistential() {
        #expect(classify(cannedExistential).kind == .witnessTable)
    }

    @Test func witnessTableCallThroughStackSpillIgnoringValueWitnesses() {
        let form = classify(cannedUnspecialisedGeneric)
        #expect(form.kind == .witnessTable)
        #expect(form.evidence.contains { $0.contains("*-0x48(%rbp)") })
        #expect(!form.evidence.contains { $0.contains("*0x8(%rax)") })
    }

    /// A tail call through a function pointer passed in (a `@convention(c)` thunk's `jmpq *%rdi`):
    /// a call, never an inlined body.
    @Test func tailJumpThroughAPassedPointerIsIndirect() {
        let listing = """
            0000000000001000 <$s1m5applyyS2iXC_SitF>:
                1000:      \tmovq\t%rdi, %rax
                1003:      \tmovq\t%rsi, %rdi
                1006:      \tjmpq\t*%rax
            """
        let form = classify(listing, [])
        #expect(form.kind == .indirect)
    }

    @Test func closureCallIsIndirect() {
        #expect(classify(cannedClosure, []).kind == .indirect)
    }

    @Test func noCallMeansInlined() {
        #expect(classify(cannedInlined).kind == .inlined)
    }

    @Test func directCallsAndGOTCalls() {
        let direct = """
            0000000000001000 <$s1m1fyyF>:
                1000:      \tcallq\t0x2000 <$s1m1SV4workyS2iF>
                1005:      \tcallq\t*0x1234(%rip)            # 0x3000 <$s1m5otheryyF>
            """
        #expect(classify(direct).kind == .direct)
        #expect(classify(direct, ["5other"]).kind == .direct)
        #expect(classify(direct, ["nothing"]).kind == .inlined)
    }

    /// The optimizer keeps one copy of identical kernels; the others become a `jmp` to it.
    @Test func followsWholeFunctionTailJumps() {
        let thunk = """
            0000000000001000 <$s1m7kernelAyyF>:
                1000:      \tpushq\t%rbp
                1001:      \tmovq\t%rsp, %rbp
                1004:      \tpopq\t%rbp
                1005:      \tjmp\t0x2000 <$s1m7kernelByyF>
            """
        let form = CompiledFormClassifier.classify(
            functions: Disassembly(objdumpOutput: thunk).functions, target: CallTarget(calleeFragments: ["4work"])
        ) { name in
            name == "$s1m7kernelByyF" ? Disassembly(objdumpOutput: cannedVtable).functions : []
        }
        #expect(form.kind == .vtable)
        #expect(form.evidence.contains { $0.contains("tail-jumps to $s1m7kernelByyF") })
        #expect(form.evidence.contains { $0.contains("swift_retain/swift_release") })
    }

    @Test func decimalDisplacementsFromOlderObjdump() {
        let text = """
            0000000000001000 <k>:
                1000:      \tmovq\t(%r13), %rax
                1004:      \tcallq\t*72(%rax)
            """
        #expect(classify(text).kind == .vtable)
    }

    @Test func mangledPrefixes() {
        #expect(mangledPrefix(module: "m", function: "kGen") == "$s1m4kGen")
        #expect(CompiledFormClassifier.modulePrefix(of: "$s13DispatchBench4workyS2iF") == "$s13DispatchBench")
    }
}

/// `swiftc -O` a small file into a temp dir, then classify its functions through the same path the
/// suite uses on its own binary (ELF symbol table + llvm-objdump).
@Suite struct CompiledBinaryTests {
    static let source = """
        protocol P { func work(_ x: Int) -> Int }
        struct S: P { let s: Int; func work(_ x: Int) -> Int { (x ^ s) &* 3 &+ 1 } }
        open class Base { public init() {}; open func work(_ x: Int) -> Int { x &+ 1 } }
        final class Sub: Base { override func work(_ x: Int) -> Int { x &+ 2 } }
        @inline(never) func kVtable(_ rs: [Base], _ n: Int) -> Int {
            var a = 0; let m = rs.count - 1; for i in 0..<n { a = rs[i & m].work(a) }; return a }
        @inline(never) func kExist(_ rs: [any P], _ n: Int) -> Int {
            var a = 0; let m = rs.count - 1; for i in 0..<n { a = rs[i & m].work(a) }; return a }
        @inline(never) func kStruct(_ rs: [S], _ n: Int) -> Int {
            var a = 0; let m = rs.count - 1; for i in 0..<n { a = rs[i & m].work(a) }; return a }
        @inline(never) func kClosure(_ f: (Int) -> Int, _ n: Int) -> Int {
            var a = 0; for _ in 0..<n { a = f(a) }; return a }
        @inline(never) @_optimize(none) func id<T>(_ x: T) -> T { x }
        let n = CommandLine.arguments.count * 100
        print(kVtable(id([Base(), Sub()]), n), kExist(id([S(s: n) as any P]), n), kStruct(id([S(s: n)]), n),
              kClosure(id({ $0 &+ n }), n))
        """

    static func swiftc() -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/swiftc" }
        return (path + ["/opt/swift/usr/bin/swiftc"]).first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test func classifiesOptimisedFunctions() throws {
        let swiftc = try #require(Self.swiftc(), "swiftc not found")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dispatchbench-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sourceFile = directory.appendingPathComponent("m.swift")
        try Self.source.write(to: sourceFile, atomically: true, encoding: .utf8)
        let binary = directory.appendingPathComponent("m").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: swiftc)
        process.arguments = ["-O", "-module-name", "m", sourceFile.path, "-o", binary]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)

        let disassembler = try ExecutableDisassembler(executablePath: binary)
        let work = CallTarget(calleeFragments: ["4workyS2iF"])
        #expect(disassembler.classify(functionPrefix: "$s1m7kVtable", target: work).kind == .vtable)
        #expect(disassembler.classify(functionPrefix: "$s1m6kExist", target: work).kind == .witnessTable)
        #expect(disassembler.classify(functionPrefix: "$s1m7kStruct", target: work).kind == .inlined)
        #expect(disassembler.classify(functionPrefix: "$s1m8kClosure", target: work).kind == .indirect)
        #expect(disassembler.classify(functionPrefix: "$s1m7missing", target: work).kind == .unknown)
    }
}

/// The suite's own kernels in this (debug, unoptimised) test binary. Only forms that -Onone cannot
/// change are asserted: nothing is inlined or devirtualised without optimisation.
@Suite struct OwnBinaryTests {
    @Test func classifiesKernelsInTheTestBinary() throws {
        let disassembler = try ExecutableDisassembler()
        func form(_ name: String) throws -> CompiledForm.Kind {
            let dispatchCase = try #require(dispatchCases.first { $0.path == name })
            return dispatchCase.compiledForm(using: disassembler).kind
        }
        #expect(try form("DispatchBench/dispatch/open-no-override") == .vtable)
        #expect(try form("DispatchBench/dispatch/overridden-megamorphic") == .vtable)
        #expect(try form("DispatchBench/dispatch/existential") == .witnessTable)
        #expect(try form("DispatchBench/dispatch/generic-cross-module") == .witnessTable)
        #expect(try form("DispatchBench/dispatch/closure") == .indirect)
        #expect(try form("DispatchBench/dispatch/cross-module-call") == .direct)
        #expect(try form("DispatchBench/dispatch/final-class") == .direct)
        #expect(try form("DispatchBench/dispatch/particle-open") == .vtable)
    }
}
