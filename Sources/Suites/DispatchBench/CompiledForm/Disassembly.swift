import Foundation

/// One x86-64 instruction as `llvm-objdump -d --no-show-raw-insn` prints it (AT&T syntax).
public struct Instruction: Sendable, Equatable {
    public var address: UInt64
    public var mnemonic: String
    /// Operands in AT&T order (sources first, destination last), comment removed.
    public var operands: [String]
    /// The symbol objdump printed for a branch target or a rip-relative operand, without `+0x…`.
    public var symbol: String?
    /// True when `symbol` was printed with an offset (`<sym+0x10>`): a branch inside a function.
    public var symbolHasOffset: Bool
    public var text: String

    public var isCall: Bool { mnemonic.hasPrefix("call") }
    public var isJump: Bool { mnemonic.hasPrefix("j") }
    /// `call *…` / `jmp *…`: the target is computed at run time.
    public var isIndirectBranch: Bool { (isCall || isJump) && operands.first?.hasPrefix("*") == true }
}

/// The functions in one objdump listing, by symbol, in order.
public struct Disassembly: Sendable {
    public var functions: [(symbol: String, instructions: [Instruction])]

    /// Parses `llvm-objdump -d` output. Lines that are not instructions or function headers are skipped.
    public init(objdumpOutput: String) {
        var functions: [(symbol: String, instructions: [Instruction])] = []
        for rawLine in objdumpOutput.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            // "0000000000001120 <$s1m7kVtableySiSayAA4BaseCG_SitF>:"
            if line.hasSuffix(">:"), let open = line.firstIndex(of: "<") {
                let name = String(line[line.index(after: open)..<line.index(line.endIndex, offsetBy: -2)])
                functions.append((name, []))
                continue
            }
            guard let instruction = Self.parseInstruction(line), !functions.isEmpty else { continue }
            functions[functions.count - 1].instructions.append(instruction)
        }
        self.functions = functions
    }

    static func parseInstruction(_ line: String) -> Instruction? {
        guard let colon = line.firstIndex(of: ":"),
            let address = UInt64(line[..<colon], radix: 16)
        else { return nil }
        var rest = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        var symbol: String?
        var symbolHasOffset = false
        if let hash = rest.firstIndex(of: "#") {
            let comment = rest[rest.index(after: hash)...]
            (symbol, symbolHasOffset) = Self.angleSymbol(in: String(comment))
            rest = rest[..<hash].trimmingCharacters(in: .whitespaces)
        }
        if let open = rest.firstIndex(of: "<") {
            (symbol, symbolHasOffset) = Self.angleSymbol(in: String(rest[open...]))
            rest = rest[..<open].trimmingCharacters(in: .whitespaces)
        }
        let parts = rest.split(maxSplits: 1, whereSeparator: { $0 == " " || $0 == "\t" })
        guard let mnemonic = parts.first.map(String.init), !mnemonic.isEmpty else { return nil }
        // Instruction prefixes such as "lock" or "rep" come first; the operation follows.
        let operandText = parts.count > 1 ? String(parts[1]).trimmingCharacters(in: .whitespaces) : ""
        return Instruction(
            address: address, mnemonic: mnemonic, operands: Self.splitOperands(operandText), symbol: symbol,
            symbolHasOffset: symbolHasOffset,
            text: line.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " "))
    }

    static func angleSymbol(in text: String) -> (String?, Bool) {
        guard let open = text.firstIndex(of: "<"), let close = text.lastIndex(of: ">"), open < close else {
            return (nil, false)
        }
        var name = String(text[text.index(after: open)..<close])
        var hasOffset = false
        if let plus = name.range(of: "+0x", options: .backwards) {
            name = String(name[..<plus.lowerBound])
            hasOffset = true
        }
        return (name, hasOffset)
    }

    /// Splits "0x20(%rbx,%rax,8), %r13" at commas outside parentheses.
    static func splitOperands(_ text: String) -> [String] {
        var result: [String] = []
        var current = ""
        var depth = 0
        for character in text {
            switch character {
            case "(": depth += 1
            case ")": depth -= 1
            case "," where depth == 0:
                result.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
                continue
            default: break
            }
            current.append(character)
        }
        let last = current.trimmingCharacters(in: .whitespaces)
        if !last.isEmpty { result.append(last) }
        return result
    }
}
