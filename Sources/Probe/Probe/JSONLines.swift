import Foundation
import Synchronization

/// Appending records to a JSON-lines file, for every outlet that writes one (stalls, memory).
package enum JSONLines {
    /// Why `path` cannot take records, or nil when it can: opened for appending (created if
    /// missing, nothing written) as each record will be.
    /// The first check of a path keeps its descriptor for the life of the process, in reserve.
    static func cannotAppend(to path: String) -> String? {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        reserved.withLock { kept in
            if kept[path] == nil { kept[path] = fd } else { close(fd) }
        }
        return nil
    }

    /// One descriptor a path, opened when an outlet started and never closed: a record is written
    /// through it when opening the file fails for want of descriptors (EMFILE, ENFILE), so a
    /// service that has used all it may open still gets its records (into the file as it was when
    /// the outlet started, should it have been rotated since).
    private static let reserved = Mutex<[String: Int32]>([:])

    /// Appends `record` as one JSON object and a newline, encoded the same way for every outlet
    /// (sorted keys, ISO 8601 dates; ``JSONLineEncoder``). Returns why it failed, or nil.
    package static func append(_ record: some Encodable, to path: String) -> String? {
        let line: ChunkedBytes
        do { line = try JSONLineEncoder.encode(record) } catch { return "cannot encode it: \(error)" }
        line.append(0x0A)
        return appendLine(line, to: path)
    }

    /// Appends `line` (one JSON object and its newline) with O_APPEND in one `writev`, so concurrent
    /// writers do not interleave lines. Returns why it failed, or nil.
    private static func appendLine(_ line: ChunkedBytes, to path: String) -> String? {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let error = errno
            if error == EMFILE || error == ENFILE {
                if let problem = reserved.withLock({ kept in kept[path].map { appendWhole(line, to: $0) } }) {
                    return problem.map { "\($0) (through the descriptor kept for want of new ones)" }
                }
            }
            return String(cString: strerror(error))
        }
        defer { close(fd) }
        return appendWhole(line, to: fd)
    }

    /// Writes `line` or nothing: a write that fails part-way (the disk full) is cut off again, so
    /// the file never ends in half a record and the next one starts on a line of its own.
    private static func appendWhole(_ line: ChunkedBytes, to fd: Int32) -> String? {
        var before = stat()
        let known = fstat(fd, &before) == 0
        guard let problem = writeAll(line, to: fd) else { return nil }
        var after = stat()
        if known, fstat(fd, &after) == 0, after.st_size > before.st_size,
            after.st_size <= before.st_size + off_t(line.count)
        {
            _ = ftruncate(fd, before.st_size)
        }
        return problem
    }

    /// Writes all of `bytes` to `fd` (a short write goes on where it stopped). Returns why it
    /// failed, or nil.
    private static func writeAll(_ bytes: ChunkedBytes, to fd: Int32) -> String? {
        withExtendedLifetime(bytes) { writeAll(bytes.regions, to: fd) }
    }

    private static func writeAll(_ regions: [UnsafeRawBufferPointer], to fd: Int32) -> String? {
        var regions = regions
        var first = 0
        while first < regions.count {
            // At most UIO_MAXIOV (1,024) regions a call: 16 MiB.
            let vectors = regions[first..<min(first + 1_024, regions.count)].map {
                iovec(iov_base: UnsafeMutableRawPointer(mutating: $0.baseAddress), iov_len: $0.count)
            }
            let n = writev(fd, vectors, Int32(vectors.count))
            if n < 0, errno == EINTR { continue }
            if n < 0 { return String(cString: strerror(errno)) }
            if n == 0 { return "the write made no progress" }
            var written = n
            while written > 0 {
                let region = regions[first]
                if region.count <= written {
                    written -= region.count
                    first += 1
                } else {
                    regions[first] = UnsafeRawBufferPointer(rebasing: region[written...])
                    written = 0
                }
            }
        }
        return nil
    }
}
