#if canImport(Glibc)
    import Glibc
#endif

/// How many tasks of other processes are runnable (running or waiting for a CPU) at this moment:
/// the running count of `/proc/loadavg` ("4.18 2.39 2.08 8/143 28480": 8) less this process's. Read around each sample, outside its timed window, so that a claim that needs its
/// threads on several CPUs at once can tell when other work wanted them too
/// (docs/dispatchbench-findings.md#claims-on-a-busy-machine). nil where there is no such file.
enum RunnableTasks {
    /// Runnable tasks of other processes: the machine's, less this process's own running threads
    /// (a benchmark's workers still running or waking as the sample ends are not other work: on an
    /// idle 2-vCPU machine they made the machine's count 0.7–0.9 around the lock claims' samples).
    static func others() -> Int? {
        #if os(Linux)
            let ownBefore = ownRunningThreads()
            guard let machine = machineRunnable() else { return nil }
            let own = max(ownBefore, ownRunningThreads())
            return max(0, machine - own)
        #else
            return nil
        #endif
    }

    #if os(Linux)
        /// The running count of `/proc/loadavg` less the reader.
        private static func machineRunnable() -> Int? {
            let fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 128)
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return nil }
            return parse(buffer[..<count])
        }

        /// The calling thread's id, from `/proc/thread-self` (`PID/task/TID`).
        private static func callingThread() -> Int32 {
            var buffer = [CChar](repeating: 0, count: 64)
            let count = readlink("/proc/thread-self", &buffer, buffer.count - 1)
            guard count > 0 else { return 0 }
            let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return path.split(separator: "/").last.flatMap { Int32($0) } ?? 0
        }

        /// This process's threads in state R, the caller's left out.
        private static func ownRunningThreads() -> Int {
            guard let directory = opendir("/proc/self/task") else { return 0 }
            defer { closedir(directory) }
            let me = callingThread()
            var running = 0
            var buffer = [UInt8](repeating: 0, count: 512)
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) {
                    String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                }
                guard let tid = Int32(name), tid != me else { continue }
                let fd = open("/proc/self/task/\(tid)/stat", O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                close(fd)
                guard count > 0 else { continue }
                // The state follows the name's closing parenthesis: "123 (name) R …".
                if let close = buffer[..<count].lastIndex(of: UInt8(ascii: ")")), close + 2 < count,
                    buffer[close + 2] == UInt8(ascii: "R")
                {
                    running += 1
                }
            }
            return running
        }
    #endif

    /// The running count of a `/proc/loadavg` line less the reader, nil when the line has none.
    static func parse<Bytes: Collection>(_ line: Bytes) -> Int? where Bytes.Element == UInt8 {
        let fields = line.split(separator: UInt8(ascii: " "))
        guard fields.count >= 4, let slash = fields[3].firstIndex(of: UInt8(ascii: "/")),
            let running = Int(String(decoding: fields[3][..<slash], as: UTF8.self))
        else { return nil }
        return max(0, running - 1)
    }
}
