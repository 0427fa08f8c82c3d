import ELFSymbols
import Foundation
import Testing

/// A function of this test binary with a plain (C) symbol name, so the test can name it exactly.
@_cdecl("elfsymbolstests_marker")
@inline(never)
func elfSymbolsTestsMarker() -> Int { Int.random(in: 0..<1000) }

/// A Swift function that only `.symtab` names (internal, not exported).
@inline(never)
func internalSwiftFunctionForELFTest(_ x: Int) -> Int { x &* 31 &+ Int.random(in: 0..<3) }

@Suite struct ELFImageTests {
    /// The running test binary.
    static let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path

    static func runtimeAddress() -> UInt64 {
        let function: @convention(c) () -> Int = elfSymbolsTestsMarker
        return UInt64(UInt(bitPattern: unsafeBitCast(function, to: UnsafeRawPointer.self)))
    }

    /// The `/proc/self/maps` line covering `address`: (start, file offset, path).
    static func mapping(containing address: UInt64) throws -> (start: UInt64, offset: UInt64, path: String) {
        let maps = try procMaps()
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            let range = fields[0].split(separator: "-").compactMap { UInt64($0, radix: 16) }
            guard range.count == 2, range[0] <= address, address < range[1], fields.count == 6 else { continue }
            return (range[0], UInt64(fields[2], radix: 16)!, fields[5].trimmingCharacters(in: .whitespaces))
        }
        throw ELFImage.ReadError(.unreadable, path: "/proc/self/maps", problem: "no mapping covers \(address)")
    }

    /// `/proc/self/maps` read to its end (its size is reported as 0, so read until EOF).
    static func procMaps() throws -> String {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps"))
        defer { try? handle.close() }
        return String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test func resolvesAFunctionOfTheRunningBinaryByNameAndByAddress() throws {
        let image = try ELFImage(path: "/proc/self/exe")
        #expect(image.hasSymbolTable)
        let byName = try #require(image.function(named: "elfsymbolstests_marker"))
        #expect(byName.size > 0)

        // Runtime address -> file offset (via the mapping) -> link-time address -> symbol.
        let address = Self.runtimeAddress()
        let mapping = try Self.mapping(containing: address)
        #expect(mapping.path == Self.executable)
        let linkAddress = try #require(image.virtualAddress(forFileOffset: address - mapping.start + mapping.offset))
        #expect(linkAddress == byName.address)
        let (symbol, offset) = try #require(image.symbol(containing: linkAddress + 3))
        #expect(symbol.name == "elfsymbolstests_marker")
        #expect(offset == 3)
        // Just past the end is some other function or nothing, never this one.
        #expect(image.symbol(containing: byName.address + byName.size)?.symbol.name != "elfsymbolstests_marker")
        _ = elfSymbolsTestsMarker()
    }

    @Test func findsInternalSwiftFunctionsByManglingPrefix() throws {
        _ = internalSwiftFunctionForELFTest(1)
        let image = try ELFImage(path: "/proc/self/exe")
        let prefix = "$s15ELFSymbolsTests31internalSwiftFunctionForELFTest"
        let found = image.functions(withPrefix: prefix)
        try #require(!found.isEmpty)
        #expect(found[0].name == prefix + "yS2iF")
        #expect(Set(found.map(\.name)).count == found.count, "each name once")
        #expect(found.map(\.name.utf8.count) == found.map(\.name.utf8.count).sorted())
        #expect(image.function(named: prefix) == nil, "exact match only")
        #expect(image.functions(withPrefix: "$s15ELFSymbolsTests_no_such_function").isEmpty)
    }

    @Test func buildIDMatchesReadelf() throws {
        let image = try ELFImage(path: Self.executable)
        let buildID = try #require(image.buildID)
        #expect(buildID.count == 40 || buildID.count >= 16)
        let notes = try Self.run("/usr/bin/readelf", ["-n", Self.executable])
        #expect(notes.contains("Build ID: \(buildID)"), "\(notes)")
    }

    /// Where the kernel maps a vDSO (qemu-user maps none for its guest).
    @Test(.enabled(if: ((try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)) ?? "").contains("[vdso]")))
    func readsTheVDSOFromMemory() throws {
        let maps = try Self.procMaps()
        let line = try #require(maps.split(separator: "\n").first { $0.hasSuffix("[vdso]") })
        let range = line.prefix { $0 != " " }.split(separator: "-").compactMap { UInt(String($0), radix: 16) }
        let start = try #require(UnsafeRawPointer(bitPattern: range[0]))
        let image = try ELFImage(path: "[vdso]", contents: Data(bytes: start, count: Int(range[1] - range[0])))
        let gettime = try #require(image.function(named: "__vdso_clock_gettime"))
        #expect(image.symbol(containing: gettime.address)?.symbol.name.hasSuffix("clock_gettime") == true)
        #expect(!image.loadSegments.isEmpty)
    }

    /// An image reads its file through a descriptor it holds, without mapping it: no page of the
    /// file counts in the process's resident memory however long the image is kept, and names
    /// still come from the bytes the file had when it was opened after it is removed (a deploy).
    @Test func keepsNoMappingOfTheFileAndReadsNamesThroughItsDescriptor() throws {
        let maps = try Self.procMaps()
        let libc = try #require(
            maps.split(separator: "\n").lazy.compactMap {
                $0.split(separator: " ", omittingEmptySubsequences: true).last
            }
            .first { $0.hasPrefix("/") && $0.contains("/libc.so") })
        let path = try Self.temporaryFile("libc-copy", Data(contentsOf: URL(fileURLWithPath: String(libc))))
        let image = try ELFImage(path: path)
        try FileManager.default.removeItem(atPath: path)

        let getpid = try #require(image.function(named: "getpid"))
        let (symbol, offset) = try #require(image.symbol(containing: getpid.address + 1))
        #expect(symbol.address == getpid.address && offset == 1)
        #expect(symbol.name.hasSuffix("getpid"), "\(symbol.name)")
        #expect(image.functions(withPrefix: "getpi").contains { $0.name == "getpid" })
        #expect(!(try Self.procMaps()).contains(path), "the file is mapped")
    }

    /// Names read one at a time from the file (a lookup by address) are names a search reads from
    /// the whole string table, long Swift names (beyond the first read of 256 bytes) whole.
    @Test func namesReadOneByOneMatchTheStringTable() throws {
        let image = try ELFImage(path: Self.executable)
        let all = image.functions(withPrefix: "")
        let names = Set(all.map(\.name))
        var long = 0
        var unknown: [String] = []
        for function in all where function.size > 0 {
            // Aliases share an address: the name found may be another alias's, never a cut one.
            guard let (found, _) = image.symbol(containing: function.address) else { continue }
            if !names.contains(found.name) { unknown.append(found.name) }
            if found.name.utf8.count > 256 { long += 1 }
        }
        #expect(long > 0, "no name longer than one read")
        #expect(unknown.isEmpty, "\(unknown.prefix(3))")
    }

    @Test(arguments: [
        ("not-elf", Data("hello, this is text\n".utf8), "not an ELF file"),
        ("empty", Data(), "not an ELF file"),
        ("short", Data([0x7F, 0x45, 0x4C, 0x46, 2, 1, 1]), "truncated ELF file"),
    ])
    func rejectsFilesThatAreNotELF(name: String, contents: Data, problem: String) throws {
        let path = try Self.temporaryFile(name, contents)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = try #require(throws: ELFImage.ReadError.self) { try ELFImage(path: path) }
        #expect(error.kind == .malformed)
        #expect(error.description.hasPrefix("\(path): \(problem)"), "\(error)")
        #expect(!error.description.contains("\n"))
    }

    @Test func rejectsATruncatedExecutable() throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: Self.executable))
        // Headers intact, sections (at the end of the file) cut off.
        for length in [64, 4096, whole.count / 2] {
            let path = try Self.temporaryFile("truncated-\(length)", whole.prefix(length))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let error = try #require(throws: ELFImage.ReadError.self) { try ELFImage(path: path) }
            #expect(error.kind == .malformed)
            #expect(error.description.hasPrefix("\(path): truncated ELF file"), "\(error)")
        }
    }

    @Test func namesAMissingFile() throws {
        let path = "/nonexistent/elfsymbols-\(UUID())"
        let error = try #require(throws: ELFImage.ReadError.self) { try ELFImage(path: path) }
        #expect(error.kind == .unreadable)
        #expect(error.description.hasPrefix("\(path): cannot read"))
    }

    static func temporaryFile(_ name: String, _ contents: Data) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("elfsymbols-\(name)-\(UUID())").path
        try contents.write(to: URL(fileURLWithPath: path))
        return path
    }
}
