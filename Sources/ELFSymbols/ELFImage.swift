import Foundation

/// The parts of one ELF file (64-bit, little-endian) that symbol lookups need: its function
/// symbols from `.symtab` (internal functions included) and `.dynsym`, its loadable segments (to
/// turn a file offset into a link-time address) and its GNU build ID.
///
/// The file is memory-mapped and names stay in its string tables until asked for, so opening a
/// large library costs one pass over its symbol entries and no string per symbol. An image is an
/// immutable value: share it between threads freely.
public struct ELFImage: Sendable {
    /// A defined function symbol (`STT_FUNC`). `size` is 0 for symbols without a recorded size
    /// (some hand-written assembly).
    public struct Symbol: Sendable, Hashable {
        public var name: String
        /// Link-time address.
        public var address: UInt64
        public var size: UInt64
    }

    /// A `PT_LOAD` program header: the bytes at `fileOffset..<fileOffset+fileSize` are mapped at
    /// link-time address `virtualAddress`.
    public struct LoadSegment: Sendable, Hashable {
        public var fileOffset: UInt64
        public var fileSize: UInt64
        public var virtualAddress: UInt64
    }

    /// Why a file could not be read as ELF; `description` is one line naming the file.
    public struct ReadError: Error, CustomStringConvertible, Sendable {
        public var path: String
        public var problem: String
        public init(path: String, problem: String) {
            self.path = path
            self.problem = problem
        }
        public var description: String { "\(path): \(problem)" }
    }

    /// Where a function symbol's name lives in `bytes` (offset of its first byte).
    struct Entry: Sendable {
        var address: UInt64
        var size: UInt64
        var nameOffset: Int
    }

    public let path: String
    /// The `NT_GNU_BUILD_ID` note as lowercase hex (what `readelf -n` and `file` print), if any.
    public let buildID: String?
    public let loadSegments: [LoadSegment]
    /// Whether the file has a `.symtab` (it is not stripped); without one only exported
    /// (`.dynsym`) functions are known.
    public let hasSymbolTable: Bool
    /// Function symbols sorted by address (aliases: the larger first).
    let entries: [Entry]
    let bytes: Data

    /// Maps and parses the file at `path`.
    public init(path: String) throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        } catch {
            throw ReadError(path: path, problem: "cannot read (\(error.localizedDescription))")
        }
        try self.init(path: path, contents: data)
    }

    /// An image already in memory, such as the kernel's vDSO (a complete ELF file mapped by the
    /// kernel); `path` only names it in errors.
    public init(path: String, contents: Data) throws {
        let parsed = try contents.withUnsafeBytes { raw in try ELFParser(raw: raw, path: path).parse() }
        self.path = path
        self.bytes = contents
        self.buildID = parsed.buildID
        self.loadSegments = parsed.segments
        self.hasSymbolTable = parsed.hasSymbolTable
        self.entries = parsed.entries
    }

    /// The number of function symbols (both tables, so exported functions may count twice).
    public var functionCount: Int { entries.count }

    /// The link-time address of the byte at `fileOffset` in the file, or nil when no loadable
    /// segment covers it. (A module offset in `/proc/<pid>/maps` terms becomes an address that
    /// `llvm-symbolizer` and `addr2line` understand.)
    public func virtualAddress(forFileOffset fileOffset: UInt64) -> UInt64? {
        for segment in loadSegments
        where fileOffset >= segment.fileOffset && fileOffset - segment.fileOffset < segment.fileSize {
            return fileOffset - segment.fileOffset + segment.virtualAddress
        }
        return nil
    }

    /// The function symbol covering link-time `address`, and how far into it the address is.
    public func symbol(containing address: UInt64) -> (symbol: Symbol, offset: UInt64)? {
        var low = 0
        var high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].address <= address { low = mid + 1 } else { high = mid }
        }
        var index = low - 1
        // Several symbols may start at the same address (aliases); any one covering it will do.
        // A symbol without a size is taken to run up to the next symbol.
        while index >= 0 {
            let entry = entries[index]
            if entry.size == 0 || address - entry.address < entry.size {
                return (symbol(entry), address - entry.address)
            }
            guard index > 0, entries[index - 1].address == entry.address else { return nil }
            index -= 1
        }
        return nil
    }

    /// Every function symbol's link-time address and size, by address (aliases repeated).
    public var functionRanges: [(address: UInt64, size: UInt64)] {
        entries.map { ($0.address, $0.size) }
    }

    /// The file offset of link-time `address`, or nil when no loadable segment holds it (the
    /// inverse of ``virtualAddress(forFileOffset:)``).
    public func fileOffset(forVirtualAddress address: UInt64) -> UInt64? {
        for segment in loadSegments
        where address >= segment.virtualAddress && address - segment.virtualAddress < segment.fileSize {
            return address - segment.virtualAddress + segment.fileOffset
        }
        return nil
    }

    /// The first function symbol with exactly this (mangled) name.
    public func function(named name: String) -> Symbol? {
        let wanted = Array(name.utf8) + [0]
        return entries.first { nameHasPrefix($0, wanted) }.map(symbol)
    }

    /// Function symbols whose (mangled) name starts with `prefix`, each name once, shortest (for
    /// Swift: the unspecialised original) first.
    public func functions(withPrefix prefix: String) -> [Symbol] {
        let wanted = Array(prefix.utf8)
        var seen = Set<String>()
        return entries.lazy.filter { nameHasPrefix($0, wanted) }.map(symbol)
            .filter { seen.insert($0.name).inserted }
            .sorted { ($0.name.utf8.count, $0.name) < ($1.name.utf8.count, $1.name) }
    }

    private func symbol(_ entry: Entry) -> Symbol {
        Symbol(name: name(at: entry.nameOffset), address: entry.address, size: entry.size)
    }

    /// Compares the name's bytes in place (no String per symbol); `wanted` may end in NUL to ask
    /// for an exact match.
    private func nameHasPrefix(_ entry: Entry, _ wanted: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            guard entry.nameOffset <= raw.count, wanted.count <= raw.count - entry.nameOffset else { return false }
            return wanted.withUnsafeBytes {
                memcmp(raw.baseAddress! + entry.nameOffset, $0.baseAddress!, $0.count) == 0
            }
        }
    }

    private func name(at offset: Int) -> String {
        bytes.withUnsafeBytes { raw in
            guard offset < raw.count else { return "" }
            let tail = UnsafeRawBufferPointer(rebasing: raw[offset...])
            let end = tail.firstIndex(of: 0) ?? tail.count  // a name cut off by the file's end stops there
            return String(decoding: tail[..<end], as: UTF8.self)
        }
    }
}
