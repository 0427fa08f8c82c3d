import Foundation

/// Where a register's value came from, traced backwards through register moves, memory loads and
/// stack spills inside one function. Enough to tell a vtable slot (loaded from the object's isa)
/// from a witness-table slot (loaded from a table the call also receives) from a closure pointer.
indirect enum ValueOrigin: Equatable, Sendable {
    /// A register the function never wrote before the use: an incoming argument.
    case argument(String)
    /// A load from `offset(base)`; `indexed` when the address also had an index register.
    case load(base: ValueOrigin, offset: Int, indexed: Bool)
    /// A rip-relative load or address of a named symbol.
    case symbol(String)
    /// Anything else (arithmetic, a call's result, a constant).
    case computed
}

/// An AT&T memory operand `disp(base,index,scale)`.
struct MemoryOperand: Equatable, Sendable {
    var displacement: Int
    var base: String?
    var index: String?

    init?(_ text: String) {
        var text = Substring(text)
        if text.hasPrefix("*") { text = text.dropFirst() }
        guard let open = text.firstIndex(of: "("), text.hasSuffix(")"), !text.contains(":") else { return nil }
        let displacementText = text[..<open]
        if displacementText.isEmpty {
            displacement = 0
        } else {
            let negative = displacementText.hasPrefix("-")
            let digits = displacementText.dropFirst(negative ? 1 : 0)
            let value: Int?
            if digits.hasPrefix("0x") { value = Int(digits.dropFirst(2), radix: 16) } else { value = Int(digits) }
            guard let value else { return nil }
            displacement = negative ? -value : value
        }
        let inside = text[text.index(after: open)..<text.index(before: text.endIndex)]
            .split(separator: ",", omittingEmptySubsequences: false)
        base = inside.first.flatMap { $0.isEmpty ? nil : Register.canonical(String($0)) }
        index = inside.count > 1 && !inside[1].isEmpty ? Register.canonical(String(inside[1])) : nil
    }
}

enum Register {
    static let arguments = ["rdi", "rsi", "rdx", "rcx", "r8", "r9"]
    /// Registers a call may change (System V; Swift adds nothing callee-saved to this list).
    static let callerSaved: Set<String> = ["rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11"]

    private static let aliases: [String: String] = [
        "eax": "rax", "ax": "rax", "al": "rax", "ah": "rax",
        "ebx": "rbx", "bx": "rbx", "bl": "rbx", "bh": "rbx",
        "ecx": "rcx", "cx": "rcx", "cl": "rcx", "ch": "rcx",
        "edx": "rdx", "dx": "rdx", "dl": "rdx", "dh": "rdx",
        "esi": "rsi", "si": "rsi", "sil": "rsi", "edi": "rdi", "di": "rdi", "dil": "rdi",
        "ebp": "rbp", "bp": "rbp", "bpl": "rbp", "esp": "rsp", "sp": "rsp", "spl": "rsp",
    ]

    /// "%r13d" → "r13", "%eax" → "rax"; nil when `operand` is not a general-purpose register.
    static func canonical(_ operand: String) -> String? {
        guard operand.hasPrefix("%") else { return nil }
        let name = String(operand.dropFirst())
        if let alias = aliases[name] { return alias }
        if name.hasPrefix("r"), name.count >= 2 {
            let digits = name.dropFirst().prefix { $0.isNumber }
            if let number = Int(digits), (8...15).contains(number) { return "r\(number)" }
        }
        return name.hasPrefix("r") && name.count == 3 ? name : nil
    }
}

extension MemoryOperand {
    /// An aarch64 address: `[x8]`, `[x8, #0x58]`, `[x29, #-0x10]`, `[sp, #0x20]!` (pre-index),
    /// `[x8, x9, lsl #3]` (indexed). The post-index offset of `[x8], #8` is a separate operand.
    init?(aarch64 text: String) {
        var text = Substring(text)
        if text.hasSuffix("!") { text = text.dropLast() }
        guard text.hasPrefix("["), text.hasSuffix("]") else { return nil }
        let parts = text.dropFirst().dropLast().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = parts.first, let base = AArch64Register.canonical(first) else { return nil }
        self.base = base
        displacement = 0
        index = nil
        guard parts.count > 1 else { return }
        if let register = AArch64Register.canonical(parts[1]) {
            index = register
        } else if parts[1].hasPrefix("#") {
            let digits = parts[1].dropFirst()
            let negative = digits.hasPrefix("-")
            let magnitude = digits.dropFirst(negative ? 1 : 0)
            let value =
                magnitude.hasPrefix("0x") ? Int(magnitude.dropFirst(2), radix: 16) : Int(magnitude)
            guard let value else { return nil }
            displacement = negative ? -value : value
        } else {
            return nil
        }
    }

    /// Whether `text` updates its base register (`[x8, #8]!`); a post-index form is detected by its
    /// instruction (an immediate operand after the address).
    static func aarch64PreIndexed(_ text: String) -> Bool { text.hasPrefix("[") && text.hasSuffix("]!") }
}

enum AArch64Register {
    /// Integer arguments (AAPCS64); Swift passes `self` in x20 and the error in x21 besides.
    static let arguments = (0...7).map { "x\($0)" }
    /// Registers a call may change: x0–x18 (x16/x17 are the linker's veneer scratch, x18 is not
    /// reserved on Linux) and the link register x30.
    static let callerSaved: Set<String> = Set((0...18).map { "x\($0)" } + ["x30"])

    /// "w9" → "x9", "fp" → "x29", "wsp" → "sp"; nil for the zero register and anything that is
    /// not a general-purpose register.
    static func canonical(_ operand: String) -> String? {
        switch operand {
        case "sp", "wsp": return "sp"
        case "fp": return "x29"
        case "lr": return "x30"
        default: return isNumbered(operand) ? "x" + operand.dropFirst() : nil
        }
    }

    /// x0–x30 or w0–w30.
    static func isNumbered(_ operand: String) -> Bool {
        guard operand.first == "x" || operand.first == "w", let number = Int(operand.dropFirst()) else { return false }
        return (0...30).contains(number) && operand.count <= 3 && String(number) == operand.dropFirst()
    }
}
