import Foundation
import Harness

#if canImport(Glibc)
    import Glibc
#endif

/// Runs this perfkit command again under `valgrind --tool=callgrind`, for `perfkit run --instructions`
/// on machines without hardware counters. Collection starts switched off; the runner switches it
/// on around each measured region (see `CallgrindInstructionCounter`).
enum CallgrindLauncher {
    /// True in the perfkit process that valgrind runs on our behalf.
    static var isChild: Bool {
        CallgrindInstructionCounter.runningOnValgrind
            && ProcessInfo.processInfo.environment[CallgrindInstructionCounter.outputFileEnvironmentKey] != nil
    }

    /// Runs the same arguments under callgrind, waits, and exits with the child's status.
    static func runUnderCallgrind() throws -> Never {
        if CallgrindInstructionCounter.runningOnValgrind {
            throw PerfkitError(.invalidInput, "--instructions: perfkit starts valgrind itself; run it without valgrind")
        }
        guard let valgrind = ExternalTool.locateOnPath("valgrind") else {
            throw PerfkitError(.missingTool, "--instructions: valgrind is not installed (run scripts/setup.sh)")
        }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let work = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("perfkit-callgrind-\(getpid())-\(UUID().uuidString.prefix(8))")
        do {
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        } catch {
            throw PerfkitError(.cannotWrite, "\(work.path): cannot create a directory for callgrind's output: \(error)")
        }
        defer { try? FileManager.default.removeItem(at: work) }

        let program = strippedCopy(of: executable, in: work) ?? executable
        let outputFile = work.appendingPathComponent("callgrind.out").path
        var environment = ProcessInfo.processInfo.environment
        environment[CallgrindInstructionCounter.outputFileEnvironmentKey] = outputFile
        environment[PerfkitProcess.originalExecutableKey] = executable.path
        // Swift seeds its hashing per process; identical counts need identical hash tables.
        environment[EnvironmentCapture.deterministicHashingVariable] = "1"
        // The copy finds the libraries built next to the original (malloc-interposer) from here.
        let libraryDirectory = executable.deletingLastPathComponent().path
        environment["LD_LIBRARY_PATH"] = [libraryDirectory, environment["LD_LIBRARY_PATH"]].compactMap { $0 }
            .joined(separator: ":")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: valgrind)
        process.arguments =
            Self.valgrindArguments(outputFile: outputFile, log: work.appendingPathComponent("valgrind.log").path)
            + [program.path] + CommandLine.arguments.dropFirst()
        process.environment = environment
        InterruptFlag.install()
        do {
            try process.run()
        } catch {
            throw PerfkitError(.runFailed, "--instructions: cannot start \(valgrind): \(error)")
        }
        PerfkitProcess.waitPassingOnInterrupt(process)
        let status = process.terminationStatus
        if process.terminationReason == .uncaughtSignal || (status != 0 && status != 2) {
            let log = (try? String(contentsOfFile: work.appendingPathComponent("valgrind.log").path, encoding: .utf8))
            let lastLines = log.map { $0.split(separator: "\n").suffix(8).joined(separator: "\n") } ?? ""
            if !lastLines.isEmpty { printError("valgrind's log ends with:\n\(lastLines)\n") }
        }
        try? FileManager.default.removeItem(at: work)
        exit(process.terminationReason == .uncaughtSignal ? 128 + status : status)
    }

    /// Collection off until the runner's client requests; no cache or branch simulation (only
    /// `Ir` is needed, and they cost time).
    static func valgrindArguments(outputFile: String, log: String) -> [String] {
        [
            "--tool=callgrind", "--collect-atstart=no", "--cache-sim=no", "--branch-sim=no",
            "--callgrind-out-file=\(outputFile)", "--log-file=\(log)",
        ]
    }

    /// Valgrind 3.19 gives up on the DWARF 5 debug info that Swift emits ("Possibly corrupted
    /// debuginfo file"); a copy without debug sections runs fine and executes the same code.
    static func strippedCopy(of executable: URL, in directory: URL) -> URL? {
        guard let objcopy = ExternalTool.locateOnPath("objcopy") ?? ExternalTool.locateOnPath("llvm-objcopy") else {
            return nil
        }
        let copy = directory.appendingPathComponent(executable.lastPathComponent)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: objcopy)
        process.arguments = ["--strip-debug", executable.path, copy.path]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        process.waitUntilExit()
        return process.terminationStatus == 0 ? copy : nil
    }
}
