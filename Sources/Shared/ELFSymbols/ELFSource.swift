import Foundation

/// Where an ELF image's bytes come from: a file, read with `pread` through a descriptor held open
/// for the image's life, or bytes already in memory (the kernel's vDSO, a test's data).
///
/// Not memory-mapped: a mapped page once read stays in RSS while the mapping lives, and the symbolicator
/// keeps its images for good, so mapped images made a server's RSS creep (docs/probe-in-a-server.md#soak).
/// The descriptor, not the path, is read later: a file replaced by a rename (a deploy) keeps its old bytes.
final class ELFSource: Sendable {
    private enum Storage {
        case file(descriptor: Int32)
        case memory(Data)
    }

    private let storage: Storage
    /// The number of bytes (the file's size when it was opened).
    let size: UInt64

    /// Opens the file at `path` (close-on-exec: a child process never inherits it).
    init(path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ELFImage.ReadError(.unreadable, path: path, problem: "cannot read (\(Self.errorText()))")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            let problem = status.st_mode & S_IFMT == S_IFDIR ? "is a directory" : "not a regular file"
            close(descriptor)
            throw ELFImage.ReadError(.unreadable, path: path, problem: "cannot read (\(problem))")
        }
        self.storage = .file(descriptor: descriptor)
        self.size = UInt64(status.st_size)
    }

    init(contents: Data) {
        self.storage = .memory(contents)
        self.size = UInt64(contents.count)
    }

    deinit {
        if case .file(let descriptor) = storage { close(descriptor) }
    }

    /// Whether `count` bytes from `offset` lie within the source.
    func contains(_ offset: UInt64, _ count: UInt64) -> Bool {
        offset <= size && count <= size - offset
    }

    /// Fills `buffer` with the bytes at `offset`; false when the source ends before it is full (or
    /// the file cannot be read any more).
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) -> Bool {
        guard contains(offset, UInt64(buffer.count)) else { return false }
        switch storage {
        case .memory(let data):
            data.withUnsafeBytes { raw in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[Int(offset)..<Int(offset) + buffer.count]))
            }
            return true
        case .file(let descriptor):
            var done = 0
            while done < buffer.count {
                let got = pread(
                    descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
                if got < 0 && errno == EINTR { continue }
                guard got > 0 else { return false }
                done += got
            }
            return true
        }
    }

    /// `count` bytes at `offset`, or nil when the source ends before them.
    func bytes(at offset: UInt64, count: Int) -> [UInt8]? {
        var ok = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            ok = read(into: UnsafeMutableRawBufferPointer(buffer), at: offset)
            initialized = ok ? count : 0
        }
        return ok ? bytes : nil
    }

    /// The NUL-terminated string at `offset` (without its NUL); a string cut off by the end of
    /// the source stops there.
    func string(at offset: UInt64) -> String {
        // Most symbol names fit the first read; long Swift specialisations take a few more.
        var count = 256
        while offset < size {
            let available = Int(min(UInt64(count), size - offset))
            guard let chunk = bytes(at: offset, count: available) else { return "" }
            if let end = chunk.firstIndex(of: 0) { return String(decoding: chunk[..<end], as: UTF8.self) }
            if available < count { return String(decoding: chunk, as: UTF8.self) }
            count *= 4
        }
        return ""
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
