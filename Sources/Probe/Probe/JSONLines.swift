import Foundation

/// Appending records to a JSON-lines file, for every outlet that writes one (stalls, memory).
enum JSONLines {
    /// Why `path` cannot take records, or nil when it can: opened for appending (created if
    /// missing, nothing written) as each record will be.
    static func cannotAppend(to path: String) -> String? {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        close(fd)
        return nil
    }

    /// Appends `record` as one JSON object and a newline, encoded the same way for every outlet
    /// (sorted keys, ISO 8601 dates). Returns why it failed, or nil.
    static func append(_ record: some Encodable, to path: String) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        var data: Data
        do { data = try encoder.encode(record) } catch { return "cannot encode it: \(error)" }
        data.append(0x0A)
        return appendLine(data, to: path)
    }

    /// Appends `line` (one JSON object and its newline) with O_APPEND, so concurrent writers do
    /// not interleave lines. Returns why it failed, or nil.
    private static func appendLine(_ line: Data, to path: String) -> String? {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        return writeAll(line, to: fd)
    }

    /// Writes all of `data` to `fd` (a short write goes on where it stopped). Returns why it
    /// failed, or nil.
    private static func writeAll(_ data: Data, to fd: Int32) -> String? {
        data.withUnsafeBytes { raw -> String? in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0, errno == EINTR { continue }
                if n < 0 { return String(cString: strerror(errno)) }
                if n == 0 { return "the write made no progress" }
                offset += n
            }
            return nil
        }
    }
}
