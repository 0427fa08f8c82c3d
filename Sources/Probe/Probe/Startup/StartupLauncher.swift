import CProbe
import Foundation

/// Launches a program the way `perfkit startup` does and collects its startup marks: sets
/// `PERFKIT_STARTUP_T0` (CLOCK_BOOTTIME just before the spawn) and `PERFKIT_STARTUP_FILE`, waits
/// for it with `wait4` (its own major page faults), and reads the marks the program's Probe
/// library wrote at exit.
@_spi(Tooling) public struct StartupLauncher: Sendable {
    /// One launch.
    public struct Launch: Sendable, Equatable {
        /// Marks in the order the program made them, in ns after time zero.
        public var phases: [Startup.Phase]
        /// Time zero to the program's exit as the launcher saw it, ns.
        public var exitNanoseconds: Double
        public var exitStatus: Int32
        /// `ru_majflt` of the child: page faults that had to read from disk.
        public var majorPageFaults: Int
    }

    /// What went wrong, for ``LaunchError``.
    public enum LaunchErrorKind: Sendable, Equatable {
        case noCommand
        case notExecutable
        case notFound
        case cannotStart
        case waitFailed
    }

    /// Why a launch did not happen: a kind to switch on, the one-line message naming the program,
    /// and the errno behind it where there is one.
    public typealias LaunchError = ProbeError<LaunchErrorKind>

    public var command: [String]
    public var environment: [String: String]

    public init(command: [String], environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.command = command
        self.environment = environment
    }

    /// The absolute path of the command, searched in PATH like a shell would.
    public func executablePath() throws -> String {
        guard let name = command.first, !name.isEmpty else { throw LaunchError(.noCommand, "no command given") }
        if name.contains("/") {
            guard access(name, X_OK) == 0 else { throw LaunchError(.notExecutable, "\(name): not an executable file") }
            return URL(fileURLWithPath: name).standardizedFileURL.path
        }
        for directory in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        throw LaunchError(.notFound, "\(name): command not found in PATH")
    }

    /// Runs the program once and returns its phases.
    public func launch() throws -> Launch {
        let path = try executablePath()
        let marksFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("perfkit-startup-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).marks").path
        defer { unlink(marksFile) }
        var childEnvironment = environment
        childEnvironment[Startup.fileVariable] = marksFile
        let timeZero = cprobe_boottime_ns()
        childEnvironment[Startup.timeZeroVariable] = String(timeZero)

        let argv = command.map { strdup($0) } + [nil]
        let envp = childEnvironment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawnError = posix_spawn(&pid, path, nil, nil, argv, envp)
        guard spawnError == 0 else {
            throw LaunchError(
                .cannotStart, "\(path): cannot start: \(String(cString: strerror(spawnError)))", errorNumber: spawnError
            )
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else {
                let error = errno
                throw LaunchError(
                    .waitFailed, "\(path): wait failed: \(String(cString: strerror(error)))", errorNumber: error)
            }
        }
        let exitTime = cprobe_boottime_ns()
        let phases = Self.readMarks(marksFile, timeZero: timeZero)
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Launch(
            phases: phases, exitNanoseconds: Double(exitTime - timeZero), exitStatus: exitStatus,
            majorPageFaults: usage.ru_majflt)
    }

    /// Parses `<boottime-ns> <name>` lines.
    static func readMarks(_ path: String, timeZero: UInt64) -> [Startup.Phase] {
        guard let text = ThreadInfo.read(path) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let space = line.firstIndex(of: " "), let time = UInt64(line[..<space]) else { return nil }
            return Startup.Phase(
                name: String(line[line.index(after: space)...]),
                nanosecondsSinceStart: Double(time) - Double(timeZero))
        }
    }

    /// The program file and the shared libraries it loads (from `ldd`), whose pages a cold
    /// launch evicts.
    public func filesToEvict() throws -> [String] {
        let path = try executablePath()
        var files = [path]
        let ldd = Process()
        ldd.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        ldd.arguments = [path]
        let output = Pipe()
        ldd.standardOutput = output
        ldd.standardError = FileHandle.nullDevice
        if (try? ldd.run()) != nil {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            ldd.waitUntilExit()
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
                // "libfoo.so => /usr/lib/libfoo.so (0x…)" or "/lib64/ld-linux-x86-64.so.2 (0x…)"
                let text = line.contains("=>") ? line.split(separator: ">", maxSplits: 1).last ?? "" : line
                if let file = text.split(separator: " ").first(where: { $0.hasPrefix("/") }) {
                    files.append(String(file))
                }
            }
        }
        return files
    }

    /// Drops the files' pages from the page cache (`posix_fadvise(POSIX_FADV_DONTNEED)`; no
    /// privileges needed). Pages another process still maps stay. Returns the files it could not open.
    @discardableResult
    public static func evict(_ files: [String]) -> [String] {
        var failed: [String] = []
        for file in files {
            let fd = open(file, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                failed.append(file)
                continue
            }
            fdatasync(fd)
            posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_DONTNEED))
            close(fd)
        }
        return failed
    }
}
