import ELFSymbols
import Foundation
import PerfkitTools

/// Disassembles functions of an executable (by default the running one) with `llvm-objdump`.
public final class ExecutableDisassembler {
    /// Why the disassembler cannot work here (a missing symbol table throws `ELFImage.ReadError`).
    public struct Failure: Error, CustomStringConvertible, Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            /// No `llvm-objdump` in PATH or next to `swift`.
            case objdumpNotFound
        }

        public var kind: Kind
        public var message: String
        public var description: String { message }
    }

    public let executablePath: String
    public let objdumpPath: String
    /// The executable's function symbols (its `.symtab`: the benchmark's own functions are internal).
    package let symbols: ELFImage
    /// The machine code in the executable, from its ELF header; nil when the classifier does not
    /// read it (`machineName` says what it is).
    public let architecture: Architecture?
    package let machineName: String
    /// The file llvm-objdump opens: `executablePath`, or the file `/proc/<pid>/exe` links to.
    let objdumpTarget: String
    private var cache: [String: [Instruction]] = [:]

    /// `executablePath` defaults to this process's binary. `/proc/<pid>/exe` rather than
    /// `/proc/self/exe`, which objdump would resolve to itself.
    public init(executablePath: String? = nil, objdumpPath: String? = nil) throws {
        self.executablePath = executablePath ?? "/proc/\(getpid())/exe"
        guard let objdump = objdumpPath ?? Self.locateObjdump() else {
            throw Failure(kind: .objdumpNotFound, message: "llvm-objdump not found (looked in PATH and next to swift)")
        }
        self.objdumpPath = objdump
        objdumpTarget = Self.linkedFile(self.executablePath)
        let symbols = try ELFImage(path: self.executablePath)
        guard symbols.hasSymbolTable else {
            throw ELFImage.ReadError(.noSymbolTable, path: self.executablePath, problem: "no .symtab (stripped binary)")
        }
        self.symbols = symbols
        // e_machine, little-endian at offset 18 of the ELF header (ELFImage reads only little-endian ELF64).
        let machine = symbols.bytes(atFileOffset: 18, count: 2).map { UInt16($0[0]) | UInt16($0[1]) << 8 } ?? 0
        architecture = Architecture(elfMachine: machine)
        machineName = Architecture.name(ofELFMachine: machine)
    }

    /// The file a `/proc/<pid>/exe` link names, for another process to open: under qemu-user that
    /// link, followed by any process but this one, is the emulator. The link itself when the file is
    /// gone (" (deleted)") or `path` is not such a link.
    package static func linkedFile(_ path: String) -> String {
        guard path.hasPrefix("/proc/"), let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path),
            target.hasPrefix("/"), !target.hasSuffix(" (deleted)"), FileManager.default.fileExists(atPath: target)
        else { return path }
        return target
    }

    /// `llvm-objdump` from PATH, else the one in the Swift toolchain (next to `swift`, or /opt/swift).
    public static func locateObjdump() -> String? { ExternalTool.locateInToolchain("llvm-objdump") }

    /// The disassembly of each named function (in the order given; unknown names are skipped).
    public func disassemble(_ names: [String]) throws -> [(symbol: String, instructions: [Instruction])] {
        let missing = names.filter { cache[$0] == nil && (symbols.function(named: $0)?.size ?? 0) > 0 }
        if !missing.isEmpty {
            let output = try run([
                "-d", "--no-show-raw-insn", "--disassemble-symbols=" + missing.joined(separator: ","),
                objdumpTarget,
            ])
            let listing = Disassembly(objdumpOutput: output, architecture: architecture)
            for function in listing.functions where cache[function.symbol] == nil {
                cache[function.symbol] = function.instructions
            }
            for name in missing where cache[name] == nil { cache[name] = [] }
        }
        return names.compactMap { name in cache[name].map { (name, $0) } }
    }

    private func run(_ arguments: [String]) throws -> String {
        String(decoding: try ExternalTool.output(of: objdumpPath, arguments), as: UTF8.self)
    }
}
