import Foundation

/// Finding and running the command-line tools whose output perfkit reads (llvm-objdump,
/// llvm-symbolizer, valgrind, git, …): one place for the search order and for capturing output.
public enum ExternalTool {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// An executable `name` on PATH.
    public static func locateOnPath(_ name: String) -> String? {
        searchPath.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// `name` from the Swift toolchain: next to `swift` (found on PATH, symlinks resolved), then in
    /// /opt/swift/usr/bin, then anywhere on PATH. The toolchain's own LLVM tools come first because
    /// they know what this compiler emits.
    public static func locateInToolchain(_ name: String) -> String? {
        var candidates: [String] = []
        for directory in searchPath where FileManager.default.isExecutableFile(atPath: "\(directory)/swift") {
            let swift = URL(fileURLWithPath: "\(directory)/swift").resolvingSymlinksInPath()
            candidates.append(swift.deletingLastPathComponent().appendingPathComponent(name).path)
        }
        candidates.append("/opt/swift/usr/bin/\(name)")
        candidates += searchPath.map { "\($0)/\(name)" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `executable` and returns its standard output; standard error is discarded. Throws when
    /// it cannot start or exits with a non-zero status.
    public static func output(of executable: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw Failure(description: "\(executable): cannot run: \(error.localizedDescription)")
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(executable) exited with status \(process.terminationStatus)")
        }
        return data
    }

    private static var searchPath: [String] {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
    }
}
