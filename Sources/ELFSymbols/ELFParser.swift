import Foundation

/// One pass over an ELF64 little-endian file's headers: program headers (load segments, build-ID
/// note), section headers, and the function entries of `.symtab` and `.dynsym`.
///
/// Every offset read from the file is checked against its size before use, so a truncated or
/// corrupt file gives a `ReadError`, never an out-of-bounds read.
struct ELFParser {
    struct Result {
        var segments: [ELFImage.LoadSegment] = []
        var buildID: String?
        var hasSymbolTable = false
        var entries: [ELFImage.Entry] = []
    }

    let raw: UnsafeRawBufferPointer
    let path: String

    private func u16(_ at: Int) -> UInt16 {
        UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt16.self))
    }
    private func u32(_ at: Int) -> UInt32 {
        UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }
    private func u64(_ at: Int) -> UInt64 {
        UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))
    }

    private func contains(_ offset: UInt64, _ size: UInt64) -> Bool {
        offset <= UInt64(raw.count) && size <= UInt64(raw.count) - offset
    }

    private func failure(_ problem: String) -> ELFImage.ReadError { ELFImage.ReadError(path: path, problem: problem) }

    func parse() throws -> Result {
        guard raw.count >= 4, raw[0] == 0x7F, raw[1] == 0x45, raw[2] == 0x4C, raw[3] == 0x46 else {
            throw failure("not an ELF file")
        }
        guard raw.count >= 64 else { throw failure("truncated ELF file (\(raw.count) bytes, header needs 64)") }
        guard raw[4] == 2, raw[5] == 1 else { throw failure("only 64-bit little-endian ELF is supported") }
        var result = Result()
        try readProgramHeaders(into: &result)
        try readSymbols(into: &result)
        return result
    }

    private func readProgramHeaders(into result: inout Result) throws {
        let table = u64(32)
        let entrySize = Int(u16(54))
        let count = Int(u16(56))
        guard count > 0 else { return }
        guard entrySize >= 56, contains(table, UInt64(entrySize * count)) else {
            throw failure("truncated ELF file (program headers past its end)")
        }
        for index in 0..<count {
            let header = Int(table) + index * entrySize
            let offset = u64(header + 8)
            let fileSize = u64(header + 32)
            switch u32(header) {
            case 1:  // PT_LOAD
                result.segments.append(
                    ELFImage.LoadSegment(fileOffset: offset, fileSize: fileSize, virtualAddress: u64(header + 16)))
            case 4 where result.buildID == nil && contains(offset, fileSize):  // PT_NOTE
                result.buildID = buildID(inNotesAt: Int(offset), size: Int(fileSize))
            default:
                break
            }
        }
    }

    private func readSymbols(into result: inout Result) throws {
        let table = u64(40)
        let entrySize = Int(u16(58))
        let count = Int(u16(60))
        guard count > 0 else { return }
        guard entrySize >= 64, contains(table, UInt64(entrySize * count)) else {
            throw failure("truncated ELF file (section headers past its end)")
        }
        func section(_ index: Int) -> (type: UInt32, offset: UInt64, size: UInt64, link: Int) {
            let header = Int(table) + index * entrySize
            return (u32(header + 4), u64(header + 24), u64(header + 32), Int(u32(header + 40)))
        }
        for index in 0..<count {
            let symbols = section(index)
            guard symbols.type == 2 || symbols.type == 11 else { continue }  // SHT_SYMTAB, SHT_DYNSYM
            result.hasSymbolTable = result.hasSymbolTable || symbols.type == 2
            guard symbols.link < count else { throw failure("symbol table names no string table") }
            let strings = section(symbols.link)
            guard contains(symbols.offset, symbols.size), contains(strings.offset, strings.size) else {
                throw failure("truncated ELF file (symbol table past its end)")
            }
            let symbolCount = Int(symbols.size / 24)
            // Defined functions only: STT_FUNC, in a section, at an address.
            func isFunction(_ entry: Int) -> Bool {
                raw[entry + 4] & 0xF == 2 && u16(entry + 6) != 0 && u64(entry + 8) != 0
                    && UInt64(u32(entry)) < strings.size
            }
            // Room for exactly the functions: images stay cached for the life of a process (Probe's
            // symbolicator), and most symbols of a large library are not functions.
            var functions = 0
            for symbol in 0..<symbolCount where isFunction(Int(symbols.offset) + symbol * 24) { functions += 1 }
            result.entries.reserveCapacity(result.entries.count + functions)
            for symbol in 0..<symbolCount {
                let entry = Int(symbols.offset) + symbol * 24
                guard isFunction(entry) else { continue }
                let nameIndex = UInt64(u32(entry))
                let address = u64(entry + 8)
                result.entries.append(
                    ELFImage.Entry(
                        address: address, size: u64(entry + 16), nameOffset: Int(strings.offset + nameIndex)))
            }
        }
        result.entries.sort { $0.address < $1.address || ($0.address == $1.address && $0.size > $1.size) }
    }

    /// Reads an `NT_GNU_BUILD_ID` note (owner "GNU", type 3) as lowercase hex.
    private func buildID(inNotesAt offset: Int, size: Int) -> String? {
        func align4(_ n: Int) -> Int { (n + 3) & ~3 }
        var cursor = offset
        let end = offset + size
        while cursor + 12 <= end {
            let nameSize = Int(u32(cursor))
            let descriptorSize = Int(u32(cursor + 4))
            let type = u32(cursor + 8)
            let name = cursor + 12
            let descriptor = name + align4(nameSize)
            guard descriptor <= end, descriptorSize <= end - descriptor else { return nil }
            if type == 3, nameSize == 4, raw[name] == 0x47, raw[name + 1] == 0x4E, raw[name + 2] == 0x55 {
                return raw[descriptor..<(descriptor + descriptorSize)].map { byte in
                    (byte < 16 ? "0" : "") + String(byte, radix: 16)
                }.joined()
            }
            cursor = descriptor + align4(descriptorSize)
        }
        return nil
    }
}
