import Foundation
import Harness
import PerfReport
import Testing

@testable import DispatchBench
@testable import PerfMachineCode

@Suite struct UnavailableFormTests {
    /// An executable of a machine the classifier does not read (its ELF header patched to RISC-V):
    /// every form says so, without running llvm-objdump.
    @Test func executableOfAnotherArchitecture() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dispatchbench-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("riscv").path
        var image = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(getpid())/exe"))
        image.replaceSubrange(18..<20, with: [243, 0])  // e_machine = EM_RISCV
        try image.write(to: URL(fileURLWithPath: copy))

        let disassembler = try ExecutableDisassembler(executablePath: copy, objdumpPath: "/nonexistent/llvm-objdump")
        #expect(disassembler.architecture == nil)
        let dispatchCase = try #require(dispatchCases.first { $0.name == "particle-private" })
        let form = dispatchCase.compiledForm(using: disassembler)
        #expect(form.kind == .unknown && form.isUnavailable)
        #expect(
            form.evidence == [
                "compiled form unavailable on this architecture (riscv machine code; the classifier reads x86-64 and aarch64 only)"
            ])
    }

    /// objdump gets this process's binary by its real path, not the `/proc` link.
    @Test func theHostArchitectureIsRead() throws {
        #expect(Architecture.current == .x86_64 || Architecture.current == .aarch64)
        let disassembler = try ExecutableDisassembler()
        #expect(disassembler.architecture == Architecture.current)
        #expect(!disassembler.objdumpTarget.hasPrefix("/proc/"))
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        #expect(disassembler.objdumpTarget == binary)
        #expect(ExecutableDisassembler.linkedFile("/tmp/m") == "/tmp/m")
    }

    /// The claim says the form is unavailable and decides nothing from it; an unknown form for
    /// another reason keeps its wording.
    @Test func claimSaysUnavailable() throws {
        let openCase = try #require(dispatchCases.first { $0.name == "open-no-override" })
        var subject = LocalDriver.result("DispatchBench/dispatch/open-no-override", median: 3, halfWidth: 0.1)
        subject.compiledForm = .unavailable(symbol: "k", architecture: "riscv")
        let baseline = LocalDriver.result("DispatchBench/dispatch/final-class", median: 1, halfWidth: 0.1)
        let claim = openCase.claim(for: subject, in: [subject, baseline])
        #expect(claim.verdict == .inconclusive)
        #expect(claim.evidence.hasPrefix("compiled form unavailable on this architecture (riscv machine code"))
        #expect(!claim.evidence.contains("could not be determined"))

        subject.compiledForm = CompiledForm(kind: .unknown, symbol: "k", evidence: ["no function symbol starts with k"])
        let unknown = openCase.claim(for: subject, in: [subject, baseline])
        #expect(unknown.evidence.hasPrefix("compiled form could not be determined (no function symbol starts with k)"))
    }
}
