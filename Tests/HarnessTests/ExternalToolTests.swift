import Foundation
import Testing

@testable import Harness

/// Running the command-line tools perfkit reads: output captured whole, failures named.
@Suite struct ExternalToolTests {
    @Test func capturesAllOfStandardOutputAndDropsStandardError() throws {
        let sh = try #require(ExternalTool.locateOnPath("sh"))
        // More than one pipe buffer (64 KiB), so a reader that stops early would lose some.
        let data = try ExternalTool.output(of: sh, ["-c", "head -c 200000 /dev/zero; echo oops >&2"])
        #expect(data.count == 200_000)
        #expect(data.allSatisfy { $0 == 0 })
    }

    @Test func passesArgumentsUnchanged() throws {
        let printf = try #require(ExternalTool.locateOnPath("printf"))
        let data = try ExternalTool.output(of: printf, ["%s|%s", "two words", "*"])
        #expect(String(decoding: data, as: UTF8.self) == "two words|*")
    }

    @Test func aNonZeroExitIsAnErrorNamingTheToolAndStatus() throws {
        let sh = try #require(ExternalTool.locateOnPath("sh"))
        let error = #expect(throws: ExternalTool.Failure.self) { try ExternalTool.output(of: sh, ["-c", "exit 3"]) }
        #expect(error?.kind == .failed(status: 3))
        #expect(error?.description == "\(sh) exited with status 3")
    }

    @Test func aKillingSignalIsAnError() throws {
        let sh = try #require(ExternalTool.locateOnPath("sh"))
        let error = #expect(throws: ExternalTool.Failure.self) {
            try ExternalTool.output(of: sh, ["-c", "kill -TERM $$"])
        }
        #expect(error?.kind == .killed(signal: SIGTERM))
        #expect(error?.description == "\(sh) was killed by signal \(SIGTERM)")
    }

    /// Not under qemu-user, whose exec of a missing file is a child that exits 127.
    @Test(
        .disabled(
            if: EnvironmentCapture.emulator(architecture: EnvironmentCapture.machineArchitecture()) != nil,
            "emulated: the emulator reports a failed exec as exit status 127"))
    func aMissingExecutableIsAnErrorNamingIt() {
        let error = #expect(throws: ExternalTool.Failure.self) {
            try ExternalTool.output(of: "/nonexistent/perfkit-tool", [])
        }
        #expect(error?.kind == .cannotStart)
        #expect(error?.errorNumber == ENOENT)
        #expect(error?.description.hasPrefix("/nonexistent/perfkit-tool: cannot run:") == true)
    }

    /// The point of not using Foundation's Process: no helper threads are left behind.
    @Test func leavesNoThreadsBehind() throws {
        let sh = try #require(ExternalTool.locateOnPath("sh"))
        func threads() -> Set<String> {
            Set((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? [])
        }
        let before = threads()
        _ = try ExternalTool.output(of: sh, ["-c", "echo hi"])
        #expect(threads().subtracting(before).isEmpty)
    }
}
