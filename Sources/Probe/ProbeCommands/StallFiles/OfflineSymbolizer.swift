import PerfkitMain
import Foundation
import Harness
@_spi(Tooling) import Probe

/// Resolves module-relative (link-time) addresses to function, file and line by running
/// `llvm-symbolizer` (the Swift toolchain ships one) or, failing that, binutils' `addr2line`.
/// Both read the module's DWARF; Swift names are demangled in-process afterwards (neither tool
/// demangles Swift).
struct OfflineSymbolizer {
    /// One source position: a function and where in it.
    struct Position: Equatable {
        var function: String?
        var file: String?
        var line: Int?
    }

    /// Where an address is: `inlined` holds the inlined calls (innermost first) that `position`,
    /// the physical function named by the ELF symbol, reached the address through.
    struct Location: Equatable {
        var position: Position
        var inlined: [Position] = []
    }

    let toolPath: String
    var isAddr2line: Bool { (toolPath as NSString).lastPathComponent.contains("addr2line") }

    /// `explicitPath` if given, else `llvm-symbolizer` next to `swift` (PATH resolved through
    /// symlinks), in /opt/swift or in PATH, else `addr2line` in PATH.
    static func locate(explicitPath: String?) throws -> OfflineSymbolizer {
        let fileManager = FileManager.default
        if let explicitPath {
            guard fileManager.isExecutableFile(atPath: explicitPath) else {
                throw PerfkitError(.invalidInput, "\(explicitPath): not an executable file (--symbolizer)")
            }
            return OfflineSymbolizer(toolPath: explicitPath)
        }
        guard let found = ExternalTool.locateInToolchain("llvm-symbolizer") ?? ExternalTool.locateOnPath("addr2line")
        else {
            throw PerfkitError(
                .missingTool,
                "symbolicate: neither llvm-symbolizer (next to swift) nor addr2line found; use --symbolizer")
        }
        return OfflineSymbolizer(toolPath: found)
    }

    /// The location of each address in `module` (addresses the tool knows nothing about are absent).
    func locate(_ addresses: [UInt64], in module: String) throws -> [UInt64: Location] {
        guard !addresses.isEmpty else { return [:] }
        let hex = addresses.map { "0x" + String($0, radix: 16) }
        let locations: [Location]
        if isAddr2line {
            locations = Self.parseAddr2line(
                try run(["-f", "-e", module] + hex, module: module), count: addresses.count)
        } else {
            locations = try Self.parseLLVMJSON(
                try run(
                    ["--obj=" + module, "--output-style=JSON", "--functions=linkage", "--inlining"] + hex,
                    module: module),
                count: addresses.count, tool: toolPath)
        }
        var result: [UInt64: Location] = [:]
        for (address, location) in zip(addresses, locations)
        where location.position.file != nil || location.position.function != nil {
            result[address] = location
        }
        return result
    }

    /// `llvm-symbolizer --output-style=JSON`: an array with one object per address, whose
    /// `Symbol` array lists the inlined frames innermost first and the physical function last.
    static func parseLLVMJSON(_ output: Data, count: Int, tool: String) throws -> [Location] {
        guard let objects = try? JSONSerialization.jsonObject(with: output) as? [[String: Any]], objects.count == count
        else {
            throw PerfkitError(.runFailed, "\(tool): unexpected output (expected a JSON array of \(count) addresses)")
        }
        return objects.map { object in
            let frames = (object["Symbol"] as? [[String: Any]] ?? []).map { frame in
                Position(
                    function: known(frame["FunctionName"] as? String).map(Demangler.functionName),
                    file: known(frame["FileName"] as? String),
                    line: (frame["Line"] as? Int).flatMap { $0 > 0 ? $0 : nil })
            }
            guard let physical = frames.last else { return Location(position: Position()) }
            return Location(position: physical, inlined: Array(frames.dropLast()))
        }
    }

    /// `addr2line -f`: two lines per address, the function and `file:line` (`??` when unknown,
    /// possibly followed by ` (discriminator N)`).
    static func parseAddr2line(_ output: Data, count: Int) -> [Location] {
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        return (0..<count).map { index in
            guard 2 * index + 1 < lines.count else { return Location(position: Position()) }
            let function = known(String(lines[2 * index])).map(Demangler.functionName)
            var place = lines[2 * index + 1]
            if let space = place.firstIndex(of: " ") { place = place[..<space] }
            guard let colon = place.lastIndex(of: ":") else { return Location(position: Position(function: function)) }
            let line = Int(place[place.index(after: colon)...]).flatMap { $0 > 0 ? $0 : nil }
            return Location(position: Position(function: function, file: known(String(place[..<colon])), line: line))
        }
    }

    private static func known(_ text: String?) -> String? {
        guard let text, !text.isEmpty, text != "??", text != "<invalid>" else { return nil }
        return text
    }

    private func run(_ arguments: [String], module: String) throws -> Data {
        do {
            return try ExternalTool.output(of: toolPath, arguments)
        } catch let failure as ExternalTool.Failure {
            throw PerfkitError(.runFailed, "\(failure.description) on \(module)")
        }
    }
}
