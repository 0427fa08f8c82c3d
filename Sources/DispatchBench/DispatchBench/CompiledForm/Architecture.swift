import Foundation
import PerfReport

/// The machine code the classifier reads. Anything else gets a compiled form that says it is
/// unavailable on this architecture (`CompiledForm.unavailable`), never a guessed one.
public enum Architecture: String, Sendable, Equatable, CaseIterable {
    case x86_64 = "x86-64"
    case aarch64

    /// The architecture this process runs on, when the classifier reads it.
    public static var current: Architecture? {
        #if arch(x86_64)
            .x86_64
        #elseif arch(arm64)
            .aarch64
        #else
            nil
        #endif
    }

    /// The running architecture's name, for a message saying it is not read.
    static var currentName: String {
        #if arch(x86_64)
            "x86-64"
        #elseif arch(arm64)
            "aarch64"
        #elseif arch(i386)
            "i386"
        #elseif arch(arm)
            "arm"
        #elseif arch(riscv64)
            "riscv64"
        #elseif arch(powerpc64le)
            "powerpc64le"
        #elseif arch(s390x)
            "s390x"
        #elseif arch(wasm32)
            "wasm32"
        #else
            "this architecture"
        #endif
    }

    /// From an ELF header's `e_machine` (EM_X86_64 = 62, EM_AARCH64 = 183).
    init?(elfMachine: UInt16) {
        switch elfMachine {
        case 62: self = .x86_64
        case 183: self = .aarch64
        default: return nil
        }
    }

    /// A name for any ELF `e_machine`, for the message when it is not one the classifier reads.
    static func name(ofELFMachine machine: UInt16) -> String {
        let names: [UInt16: String] = [
            3: "i386", 8: "mips", 20: "powerpc", 21: "powerpc64", 22: "s390x", 40: "arm", 62: "x86-64",
            183: "aarch64", 243: "riscv", 258: "loongarch",
        ]
        return names[machine] ?? "ELF machine \(machine)"
    }

    /// From the header line llvm-objdump prints: "m: file format elf64-littleaarch64".
    /// Nil when `line` is not such a line; `.some(nil)` when it names a format not read here.
    static func fromFileFormatLine(_ line: Substring) -> Architecture?? {
        guard let range = line.range(of: "file format ") else { return nil }
        switch line[range.upperBound...].trimmingCharacters(in: .whitespaces) {
        case "elf64-x86-64": return .some(.x86_64)
        case "elf64-littleaarch64": return .some(.aarch64)
        default: return .some(nil)
        }
    }
}

extension CompiledForm {
    /// What claims and forms say when the machine code cannot be read here: an architecture the
    /// classifier does not read, or a listing it does not understand. Worded here only.
    static let unavailablePhrase = "compiled form unavailable on this architecture"

    /// A form that makes no claim about the code: `.unknown`, with the reason after the phrase.
    static func unavailable(symbol: String, because reason: String) -> CompiledForm {
        CompiledForm(kind: .unknown, symbol: symbol, evidence: ["\(unavailablePhrase) (\(reason))"])
    }

    /// For an architecture other than x86-64 and aarch64.
    static func unavailable(symbol: String, architecture name: String) -> CompiledForm {
        unavailable(
            symbol: symbol, because: "\(name) machine code; the classifier reads x86-64 and aarch64 only")
    }

    var isUnavailable: Bool { kind == .unknown && evidence.first?.hasPrefix(Self.unavailablePhrase) == true }

    /// The clause a claim gives when the form is `.unknown` (or missing): why it could not be read.
    static func unknownClause(_ form: CompiledForm?) -> String {
        if let form, form.isUnavailable, let reason = form.evidence.first { return reason }
        return "compiled form could not be determined (\(form?.evidence.first ?? "no classifier"))"
    }
}
