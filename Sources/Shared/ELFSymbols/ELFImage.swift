import Foundation

/// The parts of one ELF file (64-bit, little-endian) that symbol lookups need: its function
/// symbols from `.symtab` (internal functions included; `.dynsym`, the exported ones, when the
/// file is stripped), its loadable segments (to turn a file offset into a link-time address) and
/// its GNU build ID.
///
/// Opening a large library costs two passes over its symbol entries and no string per symbol: an
/// image keeps 12 bytes per function, and reads a name from the file (`pread`, see `ELFSource`)
/// when it is asked for. Nothing of the file is mapped, so the file's pages never count in the
/// process's resident memory however long the image is kept. An image is an immutable value:
/// share it between threads freely.
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
    /// Why an image could not be read: a kind to switch on, the file and the one-line problem.
    public struct ReadError: Error, CustomStringConvertible, Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            /// The file cannot be opened or is not a regular file.
            case unreadable
            /// Not an ELF file, or one this reader does not take (truncated, another class or byte
            /// order, sections out of bounds).
            case malformed
            /// An ELF file without the symbol table asked for (a stripped binary).
            case noSymbolTable
        }

        public var kind: Kind
        public var path: String
        public var problem: String
        public init(_ kind: Kind, path: String, problem: String) {
            self.kind = kind
            self.path = path
            self.problem = problem
        }
        public var description: String { "\(path): \(problem)" }
    }

    /// A function symbol in 12 bytes, as Probe's symbolicator keeps every module's for the life of
    /// a process: its address relative to the image's `base` (a module's functions span far less
    /// than 4 GiB), its size, and where its name starts in the string table (`st_name`), from
    /// which the name is read when asked for.
    struct Entry: Sendable {
        var offset: UInt32
        var size: UInt32
        var name: UInt32
    }

    public let path: String
    /// The `NT_GNU_BUILD_ID` note as lowercase hex (what `readelf -n` and `file` print), if any.
    public let buildID: String?
    public let loadSegments: [LoadSegment]
    /// Whether the file has a `.symtab` (it is not stripped); without one only exported
    /// (`.dynsym`) functions are known.
    public let hasSymbolTable: Bool
    /// Function symbols sorted by address (aliases: the larger first), relative to `base`.
    private let table: FunctionTable
    var entries: UnsafeBufferPointer<Entry> { UnsafeBufferPointer(table.entries) }
    let base: UInt64
    /// The file range of the string table the names are in.
    let strings: Range<UInt64>
    let source: ELFSource

    /// Opens and parses the file at `path`; the file stays open (not mapped) for names.
    public init(path: String) throws {
        try self.init(path: path, source: ELFSource(path: path))
    }

    /// An image already in memory, such as the kernel's vDSO (a complete ELF file mapped by the
    /// kernel); `path` only names it in errors.
    public init(path: String, contents: Data) throws {
        try self.init(path: path, source: ELFSource(contents: contents))
    }

    private init(path: String, source: ELFSource) throws {
        let parsed = try ELFParser(source: source, path: path).parse()
        self.path = path
        self.source = source
        self.buildID = parsed.buildID
        self.loadSegments = parsed.segments
        self.hasSymbolTable = parsed.hasSymbolTable
        self.table = parsed.table
        self.base = parsed.base
        self.strings = parsed.strings
    }

    /// The number of function symbols.
    public var functionCount: Int { entries.count }

    /// The function index for code that cannot call Swift: `count` entries of three `UInt32` each
    /// (start relative to the link-time address `base`, size, where the name is), sorted by start,
    /// aliases the largest first. The memory stays put and unchanged for as long as this image or a
    /// copy of it is kept.
    public var functionIndex: (base: UInt64, entries: UnsafeRawPointer?, count: Int) {
        (base, UnsafeRawPointer(entries.baseAddress), entries.count)
    }

    /// `count` bytes of the file at `fileOffset`, read with `pread` (nothing is mapped, so reading
    /// a module's code this way does not make its pages resident in the process), or nil past the end.
    public func bytes(atFileOffset fileOffset: UInt64, count: Int) -> [UInt8]? {
        source.bytes(at: fileOffset, count: count)
    }

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
        guard address >= base, address - base <= UInt64(UInt32.max) else { return nil }
        let address = UInt32(address - base)
        var low = 0
        var high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].offset <= address { low = mid + 1 } else { high = mid }
        }
        var index = low - 1
        // Several symbols may start at the same address (aliases); any one covering it will do.
        // A symbol without a size is taken to run up to the next symbol.
        while index >= 0 {
            let entry = entries[index]
            if entry.size == 0 || address - entry.offset < entry.size {
                return (symbol(entry), UInt64(address - entry.offset))
            }
            guard index > 0, entries[index - 1].offset == entry.offset else { return nil }
            index -= 1
        }
        return nil
    }

    /// Every function symbol's link-time address and size, by address (aliases repeated).
    public var functionRanges: some RandomAccessCollection<(address: UInt64, size: UInt64)> {
        entries.lazy.map { [base] in (base + UInt64($0.offset), UInt64($0.size)) }
    }

    /// Fills `buffer` with the file's bytes at `fileOffset`; false past the end. For reading a module's
    /// code in pieces into one buffer, rather than an array each (see ``FunctionTable``).
    public func read(into buffer: UnsafeMutableRawBufferPointer, atFileOffset fileOffset: UInt64) -> Bool {
        source.read(into: buffer, at: fileOffset)
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
        entries(whoseNameStartsWith: Array(name.utf8) + [0]).first.map(symbol)
    }

    /// Function symbols whose (mangled) name starts with `prefix`, each name once, shortest (for
    /// Swift: the unspecialised original) first.
    public func functions(withPrefix prefix: String) -> [Symbol] {
        var seen = Set<String>()
        return entries(whoseNameStartsWith: Array(prefix.utf8)).map(symbol)
            .filter { seen.insert($0.name).inserted }
            .sorted { ($0.name.utf8.count, $0.name) < ($1.name.utf8.count, $1.name) }
    }

    /// Whether a function's (mangled) name ends with one of `suffixes`: for Swift, whether the module
    /// has async code (its resume partial functions end in `TQ0_` or `TY0_`). Reads the string table
    /// once, as the prefix search does.
    public func hasFunction(nameEndingWith suffixes: [String]) -> Bool {
        guard let strings = source.bytes(at: strings.lowerBound, count: strings.count) else { return false }
        let wanted = suffixes.map { Array($0.utf8) }
        return strings.withUnsafeBufferPointer { raw in
            entries.contains { entry in
                var end = Int(entry.name)
                while end < raw.count, raw[end] != 0 { end += 1 }
                return wanted.contains { suffix in
                    end - Int(entry.name) >= suffix.count && raw[(end - suffix.count)..<end].elementsEqual(suffix)
                }
            }
        }
    }

    private func symbol(_ entry: Entry) -> Symbol {
        Symbol(
            name: source.string(at: strings.lowerBound + UInt64(entry.name)), address: base + UInt64(entry.offset),
            size: UInt64(entry.size))
    }

    /// The entries whose name starts with `wanted` (which may end in NUL to ask for an exact
    /// match), in address order. The string table is read whole for the search and dropped after
    /// it: a search compares every name, and one read is far cheaper than one per name. (Name
    /// searches are for tools such as DispatchBench's disassembler, not for long-lived processes.)
    private func entries(whoseNameStartsWith wanted: [UInt8]) -> [Entry] {
        guard let strings = source.bytes(at: strings.lowerBound, count: strings.count) else { return [] }
        return strings.withUnsafeBytes { raw in
            wanted.withUnsafeBytes { wanted in
                entries.filter { entry in
                    // A name cut off by the table's end is compared only as far as it goes.
                    let offset = Int(entry.name)
                    guard wanted.count <= raw.count - offset else { return false }
                    return wanted.isEmpty || memcmp(raw.baseAddress! + offset, wanted.baseAddress!, wanted.count) == 0
                }
            }
        }
    }
}
