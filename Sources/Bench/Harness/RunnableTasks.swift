#if canImport(Glibc)
    import Glibc
#endif

/// How many tasks of the whole machine are runnable (running or waiting for a CPU) at this moment,
/// besides the calling thread: the running count of `/proc/loadavg` ("4.18 2.39 2.08 8/143 28480":
/// 8) less one. Read around each sample, outside its timed window, so that a claim that needs its
/// threads on several CPUs at once can tell when other work wanted them too
/// (docs/dispatchbench-findings.md#claims-on-a-busy-machine). nil where there is no such file.
enum RunnableTasks {
    static func others() -> Int? {
        #if os(Linux)
            let fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 128)
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return nil }
            return parse(buffer[..<count])
        #else
            return nil
        #endif
    }

    /// The running count of a `/proc/loadavg` line less the reader, nil when the line has none.
    static func parse<Bytes: Collection>(_ line: Bytes) -> Int? where Bytes.Element == UInt8 {
        let fields = line.split(separator: UInt8(ascii: " "))
        guard fields.count >= 4, let slash = fields[3].firstIndex(of: UInt8(ascii: "/")),
            let running = Int(String(decoding: fields[3][..<slash], as: UTF8.self))
        else { return nil }
        return max(0, running - 1)
    }
}
