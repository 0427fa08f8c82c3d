import Foundation

/// The function symbols of an ELF64 little-endian executable, read from its `.symtab`.
///
/// Used to find the benchmark's own functions in the running binary (`/proc/<pid>/exe`), so
/// their compiled form can be read back rather than assumed.
public struct ELFSymbolTable: Sendable {
    public struct Symbol: Sendable, Equatable {
        public var name: String
        public var address: UInt64
        public var size: UInt64
    }

    public struct ReadError: Error, CustomStringConvertible {
        public var path: String
        public var problem: String
        public var description: String { "\(path): \(problem)" }
    }

    public let functions: [Symbol]

    public init(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ReadError(path: path, problem: "cannot open")
        }
        defer { try? handle.close() }
        func read(_ offset: UInt64, _ count: Int) throws -> [UInt8] {
            try handle.seek(toOffset: offset)
            let data = try handle.read(upToCount: count) ?? Data()
            guard data.count == count else { throw ReadError(path: path, problem: "truncated ELF file") }
            return [UInt8](data)
        }
        let header = try read(0, 64)
        guard header[0] == 0x7F, header[1] == 0x45, header[2] == 0x4C, header[3] == 0x46 else {
            throw ReadError(path: path, problem: "not an ELF file")
        }
        guard header[4] == 2, header[5] == 1 else {
            throw ReadError(path: path, problem: "only 64-bit little-endian ELF is supported")
        }
        let sectionOffset = header.load(UInt64.self, at: 0x28)
        let sectionSize = Int(header.load(UInt16.self, at: 0x3A))
        let sectionCount = Int(header.load(UInt16.self, at: 0x3C))
        let sections = try read(sectionOffset, sectionSize * sectionCount)
        func section(_ index: Int) -> (type: UInt32, offset: UInt64, size: UInt64, link: Int) {
            let base = index * sectionSize
            return (
                sections.load(UInt32.self, at: base + 4), sections.load(UInt64.self, at: base + 24),
                sections.load(UInt64.self, at: base + 32), Int(sections.load(UInt32.self, at: base + 40))
            )
        }
        guard let symtabIndex = (0..<sectionCount).first(where: { section($0).type == 2 }) else {
            throw ReadError(path: path, problem: "no .symtab (stripped binary)")
        }
        let symtab = section(symtabIndex)
        let strtab = section(symtab.link)
        let entries = try read(symtab.offset, Int(symtab.size))
        let strings = try read(strtab.offset, Int(strtab.size))
        var functions: [Symbol] = []
        for base in stride(from: 0, to: entries.count - 23, by: 24) {
            let info = entries[base + 4]
            let size = entries.load(UInt64.self, at: base + 16)
            guard info & 0xF == 2, size > 0 else { continue }  // STT_FUNC with a body
            let nameStart = Int(entries.load(UInt32.self, at: base))
            guard nameStart < strings.count else { continue }
            let nameEnd = strings[nameStart...].firstIndex(of: 0) ?? strings.count
            let name = String(decoding: strings[nameStart..<nameEnd], as: UTF8.self)
            functions.append(Symbol(name: name, address: entries.load(UInt64.self, at: base + 8), size: size))
        }
        self.functions = functions
    }

    /// Function symbols whose mangled name starts with `prefix`, shortest (the unspecialised
    /// original) first.
    public func functions(withPrefix prefix: String) -> [Symbol] {
        var seen = Set<String>()
        return functions.filter { $0.name.hasPrefix(prefix) && seen.insert($0.name).inserted }
            .sorted { ($0.name.count, $0.name) < ($1.name.count, $1.name) }
    }

    public func function(named name: String) -> Symbol? { functions.first { $0.name == name } }
}

extension [UInt8] {
    fileprivate func load<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        var value: T = 0
        for i in (0..<MemoryLayout<T>.size).reversed() { value = value << 8 | T(self[offset + i]) }
        return value
    }
}

/// Swift's mangled-name prefix of a module-level function: `$s<len><module><len><name>`.
/// Everything the compiler derives from that function (specialisations, merged bodies) shares it.
public func mangledPrefix(module: String, function: String) -> String {
    "$s\(module.utf8.count)\(module)\(function.utf8.count)\(function)"
}
