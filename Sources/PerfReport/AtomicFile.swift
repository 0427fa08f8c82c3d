import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes files so that a reader never sees a half-written one: the bytes go to a temporary
/// file in the same directory, are flushed, and the temporary file is renamed over the target.
public enum AtomicFile {
    public struct WriteError: Error, CustomStringConvertible {
        public var path: String
        public var problem: String
        public var description: String { "\(path): \(problem)" }
    }

    public static func write(_ data: Data, to url: URL) throws {
        let path = url.path
        let directory = url.deletingLastPathComponent().path
        let temporary =
            directory + "/." + url.lastPathComponent + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw WriteError(path: path, problem: "cannot create a file in \(directory): \(errnoDescription())")
        }
        var failure: String?
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = "write failed: \(errnoDescription())"
                    return
                }
                offset += n
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = "fsync failed: \(errnoDescription())" }
        close(fd)
        if failure == nil, rename(temporary, path) != 0 { failure = "cannot rename into place: \(errnoDescription())" }
        if let failure {
            unlink(temporary)
            throw WriteError(path: path, problem: failure)
        }
    }

    static func errnoDescription() -> String { String(cString: strerror(errno)) }
}
