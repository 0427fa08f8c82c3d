import Foundation

/// Finding and running the command-line tools whose output perfkit reads (llvm-objdump,
/// llvm-symbolizer, valgrind, git, …): one place for the search order and for capturing output.
public enum ExternalTool {
    /// Why a tool gave no output: a kind to switch on (with the signal or the exit status) and the
    /// one-line message naming the tool.
    public struct Failure: Error, CustomStringConvertible, Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            /// It could not be started (no such file, not executable, no pipe); `errorNumber` says why.
            case cannotStart
            /// Waiting for it failed; `errorNumber` says why.
            case waitFailed
            /// It was killed by this signal.
            case killed(signal: Int32)
            /// It exited with this non-zero status.
            case failed(status: Int32)
        }

        public var kind: Kind
        public var message: String
        public var errorNumber: Int32?
        public var description: String { message }
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
    ///
    /// Spawned directly (posix_spawn, a pipe, waitpid) rather than with Foundation's `Process`, whose
    /// watcher threads outlive the call and allocate when they wake or exit: stray allocations in
    /// whichever sample was being counted (docs/regression-gate.md, "What it took").
    public static func output(of executable: String, _ arguments: [String]) throws -> Data {
        var pipe: [Int32] = [-1, -1]
        guard Glibc.pipe(&pipe) == 0 else {
            let error = errno
            throw Failure(
                kind: .cannotStart, message: "\(executable): cannot run: pipe: \(String(cString: strerror(error)))",
                errorNumber: error)
        }
        // Not inherited by children other threads spawn; the dup2 below gives the child its own copy.
        for end in pipe { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)

        // The child starts with no signals blocked and default handlers, whatever this process
        // blocks or ignores (a sampling signal, SIGINT while a child runs).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawnError = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        close(pipe[1])
        guard spawnError == 0 else {
            close(pipe[0])
            throw Failure(
                kind: .cannotStart, message: "\(executable): cannot run: \(String(cString: strerror(spawnError)))",
                errorNumber: spawnError)
        }

        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(pipe[0], $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        close(pipe[0])

        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else {
                let error = errno
                throw Failure(
                    kind: .waitFailed, message: "\(executable): wait failed: \(String(cString: strerror(error)))",
                    errorNumber: error)
            }
        }
        if status & 0x7F != 0 {
            throw Failure(
                kind: .killed(signal: status & 0x7F), message: "\(executable) was killed by signal \(status & 0x7F)")
        }
        let exitStatus = (status >> 8) & 0xFF
        guard exitStatus == 0 else {
            throw Failure(kind: .failed(status: exitStatus), message: "\(executable) exited with status \(exitStatus)")
        }
        return data
    }

    private static var searchPath: [String] {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
    }
}
