import Foundation

/// A program the tests run to its end, with what it printed.
struct ChildProcess {
    var status: Int32
    var stdout: String
    var stderr: String

    /// Runs `executable` with `arguments` and `environment` (this process's when nil) and waits for it.
    /// Standard error is read on a thread of its own, so a child that fills one pipe while the test
    /// reads the other cannot hang both.
    static func run(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws -> Self {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let errors = LockedData()
        let reader = Thread { errors.set(err.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Self(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: errors.wait(), as: UTF8.self))
    }
}

/// Data handed from the reading thread to the test once read whole.
private final class LockedData: @unchecked Sendable {  // written once, before `done` is signalled
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    func set(_ data: Data) {
        self.data = data
        done.signal()
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}
