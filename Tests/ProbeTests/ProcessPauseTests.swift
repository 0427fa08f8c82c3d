import Foundation
import Testing

/// The path of an executable built next to the test bundle.
func builtExecutable(_ name: String) -> String {
    let bundle = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    return bundle.appendingPathComponent(name).path
}

@Suite(.serialized)
struct ProcessPauseTests {
    /// SIGSTOP/SIGCONT of the whole process is not a stall; a real stall afterwards still is, and
    /// its duration does not include the pause.
    @Test func stoppedAndContinuedProcessIsNotReportedAsAStall() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: builtExecutable("probe-test-helper"))
        process.arguments = ["pause-target"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let reader = output.fileHandleForReading
        var lines: [String] = []
        var buffer = Data()
        func readLine() -> String? {
            while true {
                if let newline = buffer.firstIndex(of: 0x0A) {
                    let line = String(decoding: buffer[..<newline], as: UTF8.self)
                    buffer.removeSubrange(...newline)
                    lines.append(line)
                    return line
                }
                let chunk = reader.availableData
                if chunk.isEmpty { return nil }
                buffer.append(chunk)
            }
        }
        #expect(readLine() == "ready")
        Thread.sleep(forTimeInterval: 0.2)
        kill(process.processIdentifier, SIGSTOP)
        Thread.sleep(forTimeInterval: 0.8)
        kill(process.processIdentifier, SIGCONT)
        Thread.sleep(forTimeInterval: 0.3)
        input.fileHandleForWriting.write(Data("stall\n".utf8))
        #expect(readLine() == "stalled")
        input.fileHandleForWriting.write(Data("exit\n".utf8))
        let summary = try #require(readLine())
        process.waitUntilExit()
        // Exactly the one real 400 ms stall; the 800 ms stop is not a stall and is not in its duration.
        #expect(summary.hasPrefix("stalls=1 "), "\(lines)")
        let duration = Int(summary.split(separator: "=").last ?? "") ?? 0
        #expect(duration >= 300 && duration < 700, "\(summary)")
    }
}
