import Foundation
import Synchronization

/// A program the tests run to its end, with what it printed.
struct ChildProcess {
    var status: Int32
    var stdout: String
    var stderr: String

    /// A child still running after its time: killed, with what it printed so far.
    struct TimedOut: Error, CustomStringConvertible {
        var run: ChildProcess
        var seconds: Int
        var description: String {
            "the child ran over \(seconds) s and was killed; it printed:\n\(run.stdout)\n\(run.stderr)"
        }
    }

    /// Runs `executable` with `arguments` and `environment` (this process's when nil) and waits for it,
    /// at most `seconds`: a hung child fails its test instead of the whole run. Standard error is read
    /// on a thread of its own, so a child that fills one pipe while the test reads the other cannot
    /// hang both.
    static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, seconds: Int = 120
    ) throws -> Self {
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
        let killed = KilledFlag()
        let watchdog = DispatchWorkItem {
            guard process.isRunning else { return }
            killed.value.store(true, ordering: .relaxed)
            kill(process.processIdentifier, SIGKILL)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds), execute: watchdog)
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        let run = Self(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: errors.wait(), as: UTF8.self))
        if killed.value.load(ordering: .relaxed) { throw TimedOut(run: run, seconds: seconds) }
        return run
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

private final class KilledFlag: Sendable {
    let value = Atomic<Bool>(false)
}
