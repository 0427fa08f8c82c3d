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
