import Foundation
import Harness
import MallocInterposerSwift

/// Real allocation counts from malloc-interposer, which must be loaded with LD_PRELOAD before
/// `main` to see every allocation. `perfkit run --allocations` re-executes itself that way.
struct InterposedAllocationCounter: AllocationCounter {
    static let environmentKey = "PERFKIT_MALLOC_INTERPOSER"

    func start() {
        MallocInterposerSwift.reset()
        MallocInterposerSwift.hook()
    }

    func stop() -> (count: Int, bytes: Int) {
        MallocInterposerSwift.unhook()
        let statistics = MallocInterposerSwift.getStatistics()
        return (statistics.mallocCount, statistics.mallocBytesCount)
    }

    /// The interposer library that SwiftPM built next to the perfkit executable.
    static var libraryPath: String? {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return nil
        }
        let path = URL(fileURLWithPath: executable).deletingLastPathComponent()
            .appendingPathComponent("libMallocInterposerSwift.so").path
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// True when this process was started with the interposer preloaded by `reexecWithInterposer`.
    static var isPreloaded: Bool {
        ProcessInfo.processInfo.environment[environmentKey] == "1"
    }

    /// Replaces this process with itself, with the interposer preloaded. Returns only on failure.
    static func reexecWithInterposer() throws -> Never {
        guard let library = libraryPath else {
            throw PerfkitError(
                .missingTool, "--allocations: libMallocInterposerSwift.so was not found next to the perfkit executable")
        }
        var environment = ProcessInfo.processInfo.environment
        environment[environmentKey] = "1"
        environment["LD_PRELOAD"] = [library, environment["LD_PRELOAD"]].compactMap { $0 }.joined(separator: ":")
        let arguments = CommandLine.arguments
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        execve("/proc/self/exe", argv, envp)
        throw PerfkitError(
            .runFailed,
            "--allocations: cannot re-execute perfkit with the interposer: \(String(cString: strerror(errno)))")
    }
}
