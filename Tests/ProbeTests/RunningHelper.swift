import Foundation

/// `probe-test-helper` running beside a test that talks to it: arguments in, lines out, stdin to
/// drive it. Terminated if still running when released.
final class RunningHelper {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer = Data()

    init(_ arguments: [String], environment: [String: String]? = nil) throws {
        process.executableURL = URL(fileURLWithPath: builtExecutable("probe-test-helper"))
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    deinit { if process.isRunning { process.terminate() } }

    /// The next line it printed; nil once its output ended.
    func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    /// Lines up to and including the first that starts with `prefix` (all of them if none does).
    func lines(through prefix: String) -> [String] {
        var lines: [String] = []
        while let line = readLine() {
            lines.append(line)
            if line.hasPrefix(prefix) { break }
        }
        return lines
    }

    /// The integer after `name=` in `lines`.
    static func value(_ name: String, in lines: [String]) -> Int? {
        lines.first { $0.hasPrefix(name + "=") }.flatMap { Int($0.dropFirst(name.count + 1)) }
    }

    func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

    /// Closes its standard input (the helpers that serve until then stop) and waits for its exit.
    func finish() -> Int32 {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
