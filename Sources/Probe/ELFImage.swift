import Foundation

/// The parts of one ELF file (64-bit, little-endian) that symbolication needs: its function
/// symbols from `.symtab` (internal functions included) and `.dynsym`, its loadable segments (to
/// turn a file offset into a link-time address) and its GNU build ID.
///
/// The file is memory-mapped; names are read from the string tables only when asked for.
final class ELFImage: @unchecked Sendable {  // immutable after init
    struct Symbol {
        var address: UInt64
        var size: UInt64
        /// Offset of the name in `bytes`.
        var nameOffset: Int
    }

    struct Segment {
        var fileOffset: UInt64
        var fileSize: UInt64
        var virtualAddress: UInt64
    }

    let path: String
    let buildID: String?
    let segments: [Segment]
    /// Function symbols sorted by address.
    let symbols: [Symbol]
    private let bytes: Data

    enum LoadError: Error { case unreadable, notELF64 }

    convenience init(path: String) throws {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else {
            throw LoadError.unreadable
        }
        try self.init(path: path, data: data)
    }

    /// An image already in memory, such as the kernel's vDSO (a complete ELF file mapped by the kernel).
    init(path: String, data: Data) throws {
        self.path = path
        self.bytes = data
        let parsed = try data.withUnsafeBytes { raw -> ([Segment], [Symbol], String?) in
            try Self.parse(raw)
        }
        self.segments = parsed.0
        self.symbols = parsed.1
        self.buildID = parsed.2
    }

    /// The link-time address for a byte at `fileOffset` in the file, or nil when no loadable
    /// segment covers it.
    func virtualAddress(forFileOffset fileOffset: UInt64) -> UInt64? {
        for segment in segments where fileOffset >= segment.fileOffset && fileOffset < segment.fileOffset + segment.fileSize {
            return fileOffset - segment.fileOffset + segment.virtualAddress
        }
        return nil
    }

    /// The function symbol covering `address` (a link-time address), and the offset into it.
    func symbol(containing address: UInt64) -> (name: String, offset: UInt64)? {
        var low = 0
        var high = symbols.count
        while low < high {
            let mid = (low + high) / 2
            if symbols[mid].address <= address { low = mid + 1 } else { high = mid }
        }
        var index = low - 1
        // Several symbols may start at the same address (aliases); any sized one covering it will do.
        while index >= 0 {
            let symbol = symbols[index]
            if symbol.size == 0 || address < symbol.address + symbol.size {
                return (name(at: symbol.nameOffset), address - symbol.address)
            }
            if index > 0, symbols[index - 1].address == symbol.address {
                index -= 1
                continue
            }
            return nil
        }
        return nil
    }

    private func name(at offset: Int) -> String {
        bytes.withUnsafeBytes { raw in
            guard offset < raw.count else { return "" }
            let start = raw.baseAddress!.advanced(by: offset).assumingMemoryBound(to: CChar.self)
            return String(cString: start)
        }
    }

    private static func parse(_ raw: UnsafeRawBufferPointer) throws -> ([Segment], [Symbol], String?) {
        guard raw.count >= 64, raw[0] == 0x7F, raw[1] == 0x45, raw[2] == 0x4C, raw[3] == 0x46, raw[4] == 2, raw[5] == 1
        else { throw LoadError.notELF64 }
        func u16(_ at: Int) -> UInt16 { raw.loadUnaligned(fromByteOffset: at, as: UInt16.self) }
        func u32(_ at: Int) -> UInt32 { raw.loadUnaligned(fromByteOffset: at, as: UInt32.self) }
        func u64(_ at: Int) -> UInt64 { raw.loadUnaligned(fromByteOffset: at, as: UInt64.self) }
        func inBounds(_ offset: UInt64, _ size: UInt64) -> Bool {
            offset <= UInt64(raw.count) && size <= UInt64(raw.count) - offset
        }

        var segments: [Segment] = []
        var buildID: String?
        let programHeaders = Int(u64(32))
        let programHeaderSize = Int(u16(54))
        let programHeaderCount = Int(u16(56))
        if programHeaderSize >= 56, inBounds(UInt64(programHeaders), UInt64(programHeaderSize * programHeaderCount)) {
            for i in 0..<programHeaderCount {
                let header = programHeaders + i * programHeaderSize
                let type = u32(header)
                let offset = u64(header + 8)
                let fileSize = u64(header + 32)
                if type == 1 {  // PT_LOAD
                    segments.append(Segment(fileOffset: offset, fileSize: fileSize, virtualAddress: u64(header + 16)))
                } else if type == 4, buildID == nil, inBounds(offset, fileSize) {  // PT_NOTE
                    buildID = findBuildID(raw, offset: Int(offset), size: Int(fileSize))
                }
            }
        }

        var symbols: [Symbol] = []
        let sectionHeaders = Int(u64(40))
        let sectionHeaderSize = Int(u16(58))
        let sectionCount = Int(u16(60))
        if sectionHeaderSize >= 64, inBounds(UInt64(sectionHeaders), UInt64(sectionHeaderSize * sectionCount)) {
            for i in 0..<sectionCount {
                let header = sectionHeaders + i * sectionHeaderSize
                let type = u32(header + 4)
                guard type == 2 || type == 11 else { continue }  // SHT_SYMTAB, SHT_DYNSYM
                let offset = u64(header + 24)
                let size = u64(header + 32)
                let link = Int(u32(header + 40))
                guard inBounds(offset, size), link < sectionCount else { continue }
                let stringsHeader = sectionHeaders + link * sectionHeaderSize
                let stringsOffset = u64(stringsHeader + 24)
                let stringsSize = u64(stringsHeader + 32)
                guard inBounds(stringsOffset, stringsSize) else { continue }
                let count = Int(size / 24)
                symbols.reserveCapacity(symbols.count + count)
                for s in 0..<count {
                    let entry = Int(offset) + s * 24
                    let info = raw[entry + 4]
                    let sectionIndex = u16(entry + 6)
                    let value = u64(entry + 8)
                    let nameIndex = UInt64(u32(entry))
                    guard info & 0xF == 2, sectionIndex != 0, value != 0, nameIndex < stringsSize else { continue }  // STT_FUNC
                    symbols.append(
                        Symbol(address: value, size: u64(entry + 16), nameOffset: Int(stringsOffset + nameIndex)))
                }
            }
        }
        symbols.sort { $0.address < $1.address || ($0.address == $1.address && $0.size > $1.size) }
        return (segments, symbols, buildID)
    }

    /// Reads an NT_GNU_BUILD_ID note ("GNU", type 3) as lowercase hex.
    private static func findBuildID(_ raw: UnsafeRawBufferPointer, offset: Int, size: Int) -> String? {
        var cursor = offset
        let end = offset + size
        func align4(_ n: Int) -> Int { (n + 3) & ~3 }
        while cursor + 12 <= end {
            let nameSize = Int(raw.loadUnaligned(fromByteOffset: cursor, as: UInt32.self))
            let descriptorSize = Int(raw.loadUnaligned(fromByteOffset: cursor + 4, as: UInt32.self))
            let type = raw.loadUnaligned(fromByteOffset: cursor + 8, as: UInt32.self)
            let name = cursor + 12
            let descriptor = name + align4(nameSize)
            guard descriptor + descriptorSize <= end else { return nil }
            if type == 3, nameSize == 4, raw[name] == 0x47, raw[name + 1] == 0x4E, raw[name + 2] == 0x55 {
                return raw[descriptor..<(descriptor + descriptorSize)].map { byte in
                    let hex = String(byte, radix: 16)
                    return hex.count == 1 ? "0" + hex : hex
                }.joined()
            }
            cursor = descriptor + align4(descriptorSize)
        }
        return nil
    }
}
