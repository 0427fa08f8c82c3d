import Foundation

/// One pass over an ELF64 little-endian file's headers: program headers (load segments, build-ID
/// note), section headers, and the function entries of `.symtab` (or `.dynsym` when stripped).
///
/// The parts are read from the source as they are needed (headers whole, symbol tables in chunks
/// of a fixed buffer), so parsing a large library holds a few kilobytes of it at a time, and
/// every offset read from the file is checked against its size before use: a truncated or
/// corrupt file gives a `ReadError`, never an out-of-bounds read.
struct ELFParser {
    struct Result {
        var segments: [ELFImage.LoadSegment] = []
        var buildID: String?
        var hasSymbolTable = false
        /// Function entries by address, relative to `base`.
        var table = FunctionTable(count: 0)
        var base: UInt64 = 0
        /// The file range of the string table that entries' names are in.
        var strings: Range<UInt64> = 0..<0
    }

    /// Little-endian fields of bytes read from the file.
    struct Fields {
        let raw: UnsafeRawBufferPointer
        subscript(_ at: Int) -> UInt8 { raw[at] }
        func u16(_ at: Int) -> UInt16 { UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt16.self)) }
        func u32(_ at: Int) -> UInt32 { UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)) }
        func u64(_ at: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
    }

    /// Symbol entries read at once: 2,730 entries of 24 bytes, 64 KiB.
    static let symbolsPerRead = 2_730
    /// A `PT_NOTE` segment larger than this is not read for a build ID (corrupt, or not notes).
    static let largestNotes: UInt64 = 1 << 20

    let source: ELFSource
    let path: String

    private func failure(_ problem: String) -> ELFImage.ReadError {
        ELFImage.ReadError(.malformed, path: path, problem: problem)
    }

    /// Reads `count` bytes at `offset` and hands them to `body`; nil when the file is shorter.
    private func withFields<T>(at offset: UInt64, count: Int, _ body: (Fields) throws -> T) rethrows -> T? {
        guard let bytes = source.bytes(at: offset, count: count) else { return nil }
        return try bytes.withUnsafeBytes { try body(Fields(raw: $0)) }
    }

    func parse() throws -> Result {
        let magic = source.bytes(at: 0, count: 4)
        guard magic == [0x7F, 0x45, 0x4C, 0x46] else { throw failure("not an ELF file") }
        guard source.size >= 64 else { throw failure("truncated ELF file (\(source.size) bytes, header needs 64)") }
        guard let header = source.bytes(at: 0, count: 64) else { throw failure("truncated ELF file (header)") }
        return try header.withUnsafeBytes { raw in
            let header = Fields(raw: raw)
            guard header[4] == 2, header[5] == 1 else { throw failure("only 64-bit little-endian ELF is supported") }
            var result = Result()
            try readProgramHeaders(header, into: &result)
            try readSymbols(header, into: &result)
            return result
        }
    }

    private func readProgramHeaders(_ header: Fields, into result: inout Result) throws {
        let table = header.u64(32)
        let entrySize = Int(header.u16(54))
        let count = Int(header.u16(56))
        guard count > 0 else { return }
        guard entrySize >= 56,
            let headers = source.bytes(at: table, count: entrySize * count)
        else { throw failure("truncated ELF file (program headers past its end)") }
        headers.withUnsafeBytes { raw in
            let headers = Fields(raw: raw)
            for index in 0..<count {
                let header = index * entrySize
                let offset = headers.u64(header + 8)
                let fileSize = headers.u64(header + 32)
                switch headers.u32(header) {
                case 1:  // PT_LOAD
                    result.segments.append(
                        ELFImage.LoadSegment(
                            fileOffset: offset, fileSize: fileSize, virtualAddress: headers.u64(header + 16)))
                case 4 where result.buildID == nil && fileSize <= Self.largestNotes:  // PT_NOTE
                    result.buildID = withFields(at: offset, count: Int(fileSize)) { Self.buildID(inNotes: $0) } ?? nil
                default:
                    break
                }
            }
        }
    }

    private func readSymbols(_ header: Fields, into result: inout Result) throws {
        let table = header.u64(40)
        let entrySize = Int(header.u16(58))
        let count = Int(header.u16(60))
        guard count > 0 else { return }
        guard entrySize >= 64, let sections = source.bytes(at: table, count: entrySize * count) else {
            throw failure("truncated ELF file (section headers past its end)")
        }
        func section(_ index: Int) -> (type: UInt32, offset: UInt64, size: UInt64, link: Int) {
            sections.withUnsafeBytes { raw in
                let fields = Fields(raw: raw)
                let header = index * entrySize
                return (
                    fields.u32(header + 4), fields.u64(header + 24), fields.u64(header + 32),
                    Int(fields.u32(header + 40))
                )
            }
        }
        // One table: `.symtab` when there is one, for the linker writes every symbol there, those
        // of `.dynsym` included (so reading both would keep each exported function twice);
        // `.dynsym` alone in a stripped file.
        let tables = (0..<count).filter { section($0).type == 2 }  // SHT_SYMTAB
        let dynamic = (0..<count).first { section($0).type == 11 }  // SHT_DYNSYM
        guard let index = tables.first ?? dynamic else { return }
        let symbols = section(index)
        result.hasSymbolTable = !tables.isEmpty
        guard symbols.link < count else { throw failure("symbol table names no string table") }
        let strings = section(symbols.link)
        guard source.contains(symbols.offset, symbols.size), source.contains(strings.offset, strings.size) else {
            throw failure("truncated ELF file (symbol table past its end)")
        }
        result.strings = strings.offset..<strings.offset + strings.size
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.symbolsPerRead * 24, alignment: 8)
        defer { buffer.deallocate() }
        // Calls `body` with each symbol entry of the table (24 bytes from `at` in `fields`).
        func forEachSymbol(_ body: (_ fields: Fields, _ at: Int) -> Void) throws {
            let symbolCount = Int(symbols.size / 24)
            var first = 0
            while first < symbolCount {
                let chunk = min(Self.symbolsPerRead, symbolCount - first)
                let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[..<(chunk * 24)])
                guard source.read(into: bytes, at: symbols.offset + UInt64(first * 24)) else {
                    throw failure("truncated ELF file (symbol table past its end)")
                }
                let fields = Fields(raw: UnsafeRawBufferPointer(bytes))
                for symbol in 0..<chunk { body(fields, symbol * 24) }
                first += chunk
            }
        }
        // Defined functions only: STT_FUNC, in a section, at an address.
        func isFunction(_ fields: Fields, _ entry: Int) -> Bool {
            fields[entry + 4] & 0xF == 2 && fields.u16(entry + 6) != 0 && fields.u64(entry + 8) != 0
                && UInt64(fields.u32(entry)) < strings.size
        }
        // A first pass counts the functions and finds their lowest and highest address: room for
        // exactly the functions (images stay cached for the life of a process in Probe's
        // symbolicator, and most symbols of a large library are not functions), and the base that
        // makes every address fit 32 bits. Reading the table twice is cheaper than an array grown
        // by doubling, whose spare capacity and discarded copies would stay in the heap.
        var functions = 0
        var lowest = UInt64.max
        var highest: UInt64 = 0
        try forEachSymbol { fields, entry in
            guard isFunction(fields, entry) else { return }
            functions += 1
            lowest = min(lowest, fields.u64(entry + 8))
            highest = max(highest, fields.u64(entry + 8))
        }
        guard functions > 0 else { return }
        guard highest - lowest <= UInt64(UInt32.max) else { throw failure("functions span more than 4 GiB") }
        result.base = lowest
        let functionTable = FunctionTable(count: functions)
        var filled = 0
        try forEachSymbol { fields, entry in
            guard filled < functions, isFunction(fields, entry) else { return }
            functionTable.entries[filled] = ELFImage.Entry(
                offset: UInt32(fields.u64(entry + 8) - lowest), size: UInt32(clamping: fields.u64(entry + 16)),
                name: fields.u32(entry))
            filled += 1
        }
        guard filled == functions else { throw failure("symbol table changed while read") }
        functionTable.sortByStart()
        result.table = functionTable
    }

    /// Reads an `NT_GNU_BUILD_ID` note (owner "GNU", type 3) as lowercase hex.
    private static func buildID(inNotes notes: Fields) -> String? {
        func align4(_ n: Int) -> Int { (n + 3) & ~3 }
        var cursor = 0
        let end = notes.raw.count
        while cursor + 12 <= end {
            let nameSize = Int(notes.u32(cursor))
            let descriptorSize = Int(notes.u32(cursor + 4))
            let type = notes.u32(cursor + 8)
            let name = cursor + 12
            guard nameSize <= end - name else { return nil }
            let descriptor = name + align4(nameSize)
            guard descriptor <= end, descriptorSize <= end - descriptor else { return nil }
            if type == 3, nameSize == 4, notes[name] == 0x47, notes[name + 1] == 0x4E, notes[name + 2] == 0x55 {
                return notes.raw[descriptor..<(descriptor + descriptorSize)].map { byte in
                    (byte < 16 ? "0" : "") + String(byte, radix: 16)
                }.joined()
            }
            cursor = descriptor + align4(descriptorSize)
        }
        return nil
    }
}
