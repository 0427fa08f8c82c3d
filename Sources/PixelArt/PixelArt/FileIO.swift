#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whole-file reads and atomic whole-file writes, with errors that say what failed.
enum FileIO {
    static func readAll(_ path: String) throws(PixelArtError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io("cannot open: \(errnoText())") }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw .io("cannot stat: \(errnoText())") }
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw .io("not a regular file") }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: max(Int(status.st_size), 0) + 1)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io("cannot read: \(errnoText())")
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }

    /// Writes `bytes` to a temporary file beside `path` and renames it over `path`, so that a
    /// failed write never leaves a partial file at `path`. There is no fsync: this protects against
    /// failures of the run, not against power loss, and an fsync would dominate small writes.
    static func writeAtomically(_ bytes: UnsafeRawBufferPointer, to path: String) throws(PixelArtError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard !name.isEmpty else { throw .io("output path names a directory") }
        let temporary =
            (directory.isEmpty ? "" : directory + "/") + ".\(name).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw .io("cannot create a file in \(directory.isEmpty ? "/" : directory): \(errnoText())")
        }
        var failure: String?
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                failure = "write failed: \(errnoText())"
                break
            }
            offset += n
        }
        if close(fd) != 0, failure == nil { failure = "write failed: \(errnoText())" }
        if failure == nil, rename(temporary, path) != 0 { failure = "cannot rename into place: \(errnoText())" }
        if let failure {
            unlink(temporary)
            throw .io(failure)
        }
    }

    /// Whether two paths name the same existing file (same device and inode).
    static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat()
        var sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}
