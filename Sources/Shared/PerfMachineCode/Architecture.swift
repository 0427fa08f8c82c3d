import Foundation

/// The machine code perfkit reads. Anything else is reported as unavailable on this architecture
/// (DispatchBench's `CompiledForm.unavailable`, a comparison's `unreadable`), never guessed.
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
    package static var currentName: String {
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
    package init?(elfMachine: UInt16) {
        switch elfMachine {
        case 62: self = .x86_64
        case 183: self = .aarch64
        default: return nil
        }
    }

    /// A name for any ELF `e_machine`, for the message when it is not one the classifier reads.
    package static func name(ofELFMachine machine: UInt16) -> String {
        let names: [UInt16: String] = [
            3: "i386", 8: "mips", 20: "powerpc", 21: "powerpc64", 22: "s390x", 40: "arm", 62: "x86-64",
            183: "aarch64", 243: "riscv", 258: "loongarch",
        ]
        return names[machine] ?? "ELF machine \(machine)"
    }

    /// From the header line llvm-objdump prints: "m: file format elf64-littleaarch64".
    /// Nil when `line` is not such a line; `.some(nil)` when it names a format not read here.
    package static func fromFileFormatLine(_ line: Substring) -> Architecture?? {
        guard let range = line.range(of: "file format ") else { return nil }
        switch line[range.upperBound...].trimmingCharacters(in: .whitespaces) {
        case "elf64-x86-64": return .some(.x86_64)
        case "elf64-littleaarch64": return .some(.aarch64)
        default: return .some(nil)
        }
    }
}
