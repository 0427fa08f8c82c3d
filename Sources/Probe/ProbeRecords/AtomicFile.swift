import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes files so that a reader never sees a half-written one: the bytes go to a temporary
/// file in the same directory, are flushed, and the temporary file is renamed over the target.
public enum AtomicFile {
    /// Why a write did not happen; the target is then as it was (no temporary left behind).
    public struct WriteError: Error, CustomStringConvertible, Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            /// No file could be created beside the target (no such directory, no permission, …).
            case cannotCreate
            /// Writing or flushing the bytes failed (the disk full, …).
            case cannotWrite
            /// The finished file could not be renamed over the target.
            case cannotRename
        }

        public var kind: Kind
        public var path: String
        /// The one-line problem, without the path.
        public var problem: String
        /// The errno behind it.
        public var errorNumber: Int32
        public var description: String { "\(path): \(problem)" }
    }

    public static func write(_ data: Data, to url: URL) throws {
        let path = url.path
        let directory = url.deletingLastPathComponent().path
        let temporary =
            directory + "/." + url.lastPathComponent + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let error = errno
            throw WriteError(
                kind: .cannotCreate, path: path, problem: "cannot create a file in \(directory): \(describe(error))",
                errorNumber: error)
        }
        var failure: (kind: WriteError.Kind, problem: String, errorNumber: Int32)?
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = (.cannotWrite, "write failed: \(describe(errno))", errno)
                    return
                }
                offset += n
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = (.cannotWrite, "fsync failed: \(describe(errno))", errno) }
        close(fd)
        if failure == nil, rename(temporary, path) != 0 {
            failure = (.cannotRename, "cannot rename into place: \(describe(errno))", errno)
        }
        if let failure {
            unlink(temporary)
            throw WriteError(
                kind: failure.kind, path: path, problem: failure.problem, errorNumber: failure.errorNumber)
        }
    }

    static func describe(_ error: Int32) -> String { String(cString: strerror(error)) }
}
