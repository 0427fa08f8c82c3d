import Glibc

/// Files read whole again and again through descriptors kept open: `pread` at offset 0 makes a seq
/// file (procfs, cgroupfs, PSI) show its contents afresh, so a read is one system call instead of
/// open, read, a read at the end and close. One buffer serves every file. Owned by one thread.
///
/// A file replaced by a rename is still read from the one opened; the kernel's files are never
/// replaced that way (a removed cgroup's descriptors fail to read, and then the path is reopened).
final class KeptFiles {
    private var paths: [String] = []
    private var descriptors: [Int32] = []
    private var buffer: UnsafeMutableRawBufferPointer

    /// `capacity` bytes to begin with; a read that fills the buffer doubles it and reads again.
    init(capacity: Int = 4096) {
        buffer = .allocate(byteCount: Swift.max(capacity, 16), alignment: 1)
    }

    deinit {
        closeAll()
        buffer.deallocate()
    }

    /// Adds `path` and returns its number for ``read(_:_:)``; it is opened at its first read.
    func add(_ path: String) -> Int {
        paths.append(path)
        descriptors.append(-1)
        return paths.count - 1
    }

    /// `body` over the file's whole current contents (valid only inside it), or nil when the file
    /// cannot be opened or read. A read that fails on a descriptor kept from before reopens the
    /// path once: a cgroup removed and made again has new files.
    func read<T>(_ file: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T? {
        guard let count = fill(file) else { return nil }
        return body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
    }

    /// How many descriptors are open now.
    var openCount: Int { descriptors.reduce(0) { $0 + ($1 >= 0 ? 1 : 0) } }

    /// Closes every descriptor; a later read opens its file again.
    func closeAll() {
        for index in descriptors.indices where descriptors[index] >= 0 {
            close(descriptors[index])
            descriptors[index] = -1
        }
    }

    private func fill(_ file: Int) -> Int? {
        var fresh = false
        while true {
            if descriptors[file] < 0 {
                descriptors[file] = open(paths[file], O_RDONLY | O_CLOEXEC)
                guard descriptors[file] >= 0 else { return nil }
                fresh = true
            }
            let count = pread(descriptors[file], buffer.baseAddress, buffer.count, 0)
            if count < 0 {
                if errno == EINTR { continue }
                close(descriptors[file])
                descriptors[file] = -1
                if fresh { return nil }
                continue
            }
            // A full buffer may hold only the file's beginning: read it all again into twice the room.
            if count == buffer.count {
                let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: buffer.count * 2, alignment: 1)
                buffer.deallocate()
                buffer = larger
                continue
            }
            return count
        }
    }
}

/// Parsing the kernel's text files as bytes, as `split` and the integer and floating-point
/// initializers over `String` would: no string made, nothing allocated.
enum ByteText {
    /// Each line of `bytes` that is not empty, without its newline.
    static func forEachLine(in bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
            if end > start { body(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) }
            start = end + 1
        }
    }

    /// Each field of `line` between runs of `separator` (as `split(separator:)` omits empty ones),
    /// with its position; `body` returns false to stop.
    static func forEachField(
        in line: UnsafeRawBufferPointer, separator: UInt8 = UInt8(ascii: " "),
        _ body: (Int, UnsafeRawBufferPointer) -> Bool
    ) {
        var index = 0
        var start = 0
        while start < line.count {
            if line[start] == separator {
                start += 1
                continue
            }
            var end = start
            while end < line.count && line[end] != separator { end += 1 }
            guard body(index, UnsafeRawBufferPointer(rebasing: line[start..<end])) else { return }
            index += 1
            start = end
        }
    }

    /// The line's fields when it has exactly two (a "key value" line).
    static func pair(_ line: UnsafeRawBufferPointer) -> (UnsafeRawBufferPointer, UnsafeRawBufferPointer)? {
        var first = UnsafeRawBufferPointer(start: nil, count: 0)
        var second = first
        var count = 0
        forEachField(in: line) { index, field in
            count = index + 1
            if index == 0 { first = field } else if index == 1 { second = field }
            return index < 2
        }
        return count == 2 ? (first, second) : nil
    }

    /// The line's second field between spaces: the number of a `Key:\t  value unit` line of
    /// /proc/self/status.
    static func secondField(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        var second: UnsafeRawBufferPointer?
        forEachField(in: line) { index, field in
            if index == 1 { second = field }
            return index < 1
        }
        return second
    }

    static func equals(_ bytes: UnsafeRawBufferPointer, _ text: StaticString) -> Bool {
        bytes.count == text.utf8CodeUnitCount
            && (bytes.count == 0 || memcmp(bytes.baseAddress!, text.utf8Start, bytes.count) == 0)
    }

    static func hasPrefix(_ bytes: UnsafeRawBufferPointer, _ text: StaticString) -> Bool {
        bytes.count >= text.utf8CodeUnitCount
            && memcmp(bytes.baseAddress!, text.utf8Start, text.utf8CodeUnitCount) == 0
    }

    /// `bytes` without ASCII white space (tab, newline, vertical tab, form feed, return, space) at
    /// either end.
    static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        var start = 0
        var end = bytes.count
        while start < end && isSpace(bytes[start]) { start += 1 }
        while end > start && isSpace(bytes[end - 1]) { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    /// A decimal number as `UInt64(_: Substring)` reads one: an optional sign, at least one digit,
    /// nothing else; nil on overflow (and for a negative one but zero).
    static func decimal(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
        var index = 0
        var negative = false
        if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            negative = first == UInt8(ascii: "-")
            index = 1
        }
        guard index < bytes.count else { return nil }
        var value: UInt64 = 0
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(UInt64(digit))
            guard !overflow && !carry else { return nil }
            value = sum
            index += 1
        }
        return negative && value != 0 ? nil : value
    }

    /// Powers of ten a `Double` holds exactly.
    private static let powersOfTen: [Double] = (0...22).map { power in
        (0..<power).reduce(1.0) { result, _ in result * 10 }
    }

    /// A floating-point number as `Double(_: String)` reads one. Plain decimals of up to 15
    /// significant digits (PSI's `12.34`) are one exact integer over an exact power of ten, which
    /// IEEE division rounds as `strtod` does; anything else goes through `Double(String)`.
    static func double(_ bytes: UnsafeRawBufferPointer) -> Double? {
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var seenPoint = false
        var plain = bytes.count > 0 && bytes.count <= 16
        for (offset, byte) in bytes.enumerated() where plain {
            if byte == UInt8(ascii: ".") {
                plain = !seenPoint && offset > 0 && offset < bytes.count - 1
                seenPoint = true
            } else if byte &- UInt8(ascii: "0") < 10 {
                mantissa = mantissa * 10 + UInt64(byte &- UInt8(ascii: "0"))
                digits += 1
                if seenPoint { fractionDigits += 1 }
            } else {
                plain = false
            }
        }
        if plain && digits <= 15 {
            return Double(mantissa) / powersOfTen[fractionDigits]
        }
        return Double(String(decoding: bytes, as: UTF8.self))
    }
}
