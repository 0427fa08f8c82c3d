import Foundation

/// One instruction as `llvm-objdump -d --no-show-raw-insn` prints it: x86-64 in AT&T syntax, or
/// aarch64.
public struct Instruction: Sendable, Equatable {
    public var address: UInt64
    public var mnemonic: String
    /// Operands as printed, comment removed: AT&T order on x86-64 (sources first, destination
    /// last), destination first on aarch64.
    public var operands: [String]
    /// The symbol objdump printed for a branch target or a rip-relative operand, without `+0x…`.
    public var symbol: String?
    /// True when `symbol` was printed with an offset (`<sym+0x10>`): a branch inside a function.
    public var symbolHasOffset: Bool
    public var text: String
    /// Which syntax the fields are in, and so what `isCall`, `isJump` and the operands mean.
    public var architecture: Architecture = .x86_64

    /// `call`; `bl`, `blr` (and the pointer-authenticating `blraa`…) on aarch64.
    public var isCall: Bool {
        switch architecture {
        case .x86_64: mnemonic.hasPrefix("call")
        case .aarch64: mnemonic == "bl" || mnemonic.hasPrefix("blr")
        }
    }

    /// Any jump, conditional or not. On aarch64: `b`, `b.cond`, `cbz`/`cbnz`, `tbz`/`tbnz`, `br`.
    public var isJump: Bool {
        switch architecture {
        case .x86_64: mnemonic.hasPrefix("j")
        case .aarch64:
            mnemonic == "b" || mnemonic.hasPrefix("b.") || mnemonic.hasPrefix("bc.")
                || ["cbz", "cbnz", "tbz", "tbnz"].contains(mnemonic) || isAArch64RegisterBranch && !isCall
        }
    }

    /// `call *…` / `jmp *…`, `blr`/`br`: the target is computed at run time.
    public var isIndirectBranch: Bool {
        switch architecture {
        case .x86_64: (isCall || isJump) && operands.first?.hasPrefix("*") == true
        case .aarch64: isAArch64RegisterBranch
        }
    }

    /// The operand holding an indirect branch's target: "*%rax", "*0x8(%rbp)", "x8".
    package var indirectTarget: String? { isIndirectBranch ? operands.first : nil }

    /// The address a direct branch goes to, when objdump printed one.
    package var branchTarget: UInt64? {
        switch architecture {
        case .x86_64: operands.first.flatMap { UInt64($0.dropFirst(2), radix: 16) }
        // `cbz x8, 0x40`, `tbnz w8, #0x3, 0x40`: the target comes last.
        case .aarch64: operands.last.flatMap { $0.hasPrefix("0x") ? UInt64($0.dropFirst(2), radix: 16) : nil }
        }
    }

    /// `blr`, `br` and their pointer-authenticating forms (`blraa`, `braaz`…); not `brk`.
    private var isAArch64RegisterBranch: Bool {
        ["br", "blr"].contains { mnemonic == $0 || mnemonic.hasPrefix($0 + "a") }
    }
}

/// The functions in one objdump listing, by symbol, in order.
public struct Disassembly: Sendable {
    public var functions: [(symbol: String, instructions: [Instruction])]
    /// What the instructions were read as; nil when the listing is of a machine the classifier does
    /// not read (its functions are then listed without instructions).
    public var architecture: Architecture?

    /// Parses `llvm-objdump -d` output. Lines that are not instructions or function headers are
    /// skipped. Without `architecture`, it comes from the listing's "file format" line, or else from
    /// the instructions' syntax (AT&T registers carry `%`); a listing whose format line names
    /// another architecture than the one given is of another file, and nothing in it is read.
    public init(objdumpOutput: String, architecture expected: Architecture? = nil) {
        let lines = objdumpOutput.split(separator: "\n", omittingEmptySubsequences: true)
        let architecture: Architecture?
        switch (expected, lines.lazy.compactMap { Architecture.fromFileFormatLine($0) }.first) {
        case (let expected?, nil): architecture = expected
        case (let expected?, let listed?): architecture = listed == expected ? expected : nil
        case (nil, _): architecture = Self.detectArchitecture(lines)
        }
        var functions: [(symbol: String, instructions: [Instruction])] = []
        for rawLine in lines {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            // "0000000000001120 <$s1m7kVtableySiSayAA4BaseCG_SitF>:"
            if line.hasSuffix(">:"), let open = line.firstIndex(of: "<") {
                let name = String(line[line.index(after: open)..<line.index(line.endIndex, offsetBy: -2)])
                functions.append((name, []))
                continue
            }
            guard let architecture, !functions.isEmpty else { continue }
            guard let instruction = Self.parseInstruction(line, architecture: architecture) else { continue }
            if instruction.mnemonic.hasPrefix("R_") {
                Self.applyRelocation(instruction, to: &functions[functions.count - 1].instructions)
                continue
            }
            functions[functions.count - 1].instructions.append(instruction)
        }
        self.functions = functions
        self.architecture = architecture
    }

    static func detectArchitecture(_ lines: [Substring]) -> Architecture? {
        if let format = lines.lazy.compactMap({ Architecture.fromFileFormatLine($0) }).first { return format }
        // An instruction line is "address: mnemonic operands"; AT&T syntax marks registers with `%`.
        for line in lines where !line.hasSuffix(">:") {
            guard let colon = line.firstIndex(of: ":"),
                UInt64(line[..<colon].trimmingCharacters(in: .whitespaces), radix: 16) != nil
            else { continue }
            let rest = line[line.index(after: colon)...]
            if rest.contains("%") { return .x86_64 }
            let words = rest.split(whereSeparator: { " \t,[]!".contains($0) })
            if words.contains(where: { AArch64Register.isNumbered(String($0)) }) { return .aarch64 }
        }
        // Register-free instructions only (`ret`, `nop`), or another machine's: nothing to read.
        return nil
    }

    /// One instruction line. x86-64 (AT&T): a `#` comment may name a rip-relative operand's symbol.
    /// aarch64: "1150: bl 0x1000 <swift_retain@plt>", comments start with `//` (`#` marks an
    /// immediate). A branch target's symbol follows it in angle brackets on both.
    package static func parseInstruction(_ line: String, architecture: Architecture = .x86_64) -> Instruction? {
        guard let colon = line.firstIndex(of: ":"),
            let address = UInt64(line[..<colon], radix: 16)
        else { return nil }
        var rest = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        var symbol: String?
        var symbolHasOffset = false
        switch architecture {
        case .x86_64:
            if let hash = rest.firstIndex(of: "#") {
                let comment = rest[rest.index(after: hash)...]
                (symbol, symbolHasOffset) = Self.angleSymbol(in: String(comment))
                rest = rest[..<hash].trimmingCharacters(in: .whitespaces)
            }
        case .aarch64:
            if let comment = rest.range(of: "//") {
                rest = rest[..<comment.lowerBound].trimmingCharacters(in: .whitespaces)
            }
        }
        if let open = rest.firstIndex(of: "<") {
            (symbol, symbolHasOffset) = Self.angleSymbol(in: String(rest[open...]))
            rest = rest[..<open].trimmingCharacters(in: .whitespaces)
        }
        // Instruction prefixes such as "lock" or "rep" come first; the operation follows. objdump
        // prints "<unknown>" for bytes it cannot decode: no mnemonic, so no instruction.
        let parts = rest.split(maxSplits: 1, whereSeparator: { $0 == " " || $0 == "\t" })
        guard let mnemonic = parts.first.map(String.init), !mnemonic.isEmpty else { return nil }
        let operandText = parts.count > 1 ? String(parts[1]).trimmingCharacters(in: .whitespaces) : ""
        return Instruction(
            address: address, mnemonic: mnemonic,
            operands: Self.splitOperands(operandText, brackets: architecture == .aarch64 ? "[]{}" : "()"),
            symbol: symbol, symbolHasOffset: symbolHasOffset,
            text: line.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " "),
            architecture: architecture)
    }

    /// An object file's branch (`llvm-objdump -r`) is printed with its unrelocated target (itself,
    /// on aarch64); the relocation line after it, "344: R_AARCH64_CALL26 $s1m1FC4workyS2iF", names
    /// the real one.
    static func applyRelocation(_ relocation: Instruction, to instructions: inout [Instruction]) {
        guard let last = instructions.indices.last, instructions[last].isCall || instructions[last].isJump,
            !instructions[last].isIndirectBranch, var name = relocation.operands.first
        else { return }
        // "swift_retain-0x4": the addend is not part of the name.
        if let addend = name.range(of: #"[+-]0x[0-9a-f]+$"#, options: .regularExpression) {
            name = String(name[..<addend.lowerBound])
        }
        instructions[last].symbol = name
        instructions[last].symbolHasOffset = false
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

    /// Splits "0x20(%rbx,%rax,8), %r13" (or, with `brackets: "[]"`, "x8, [x8, #0x58]") at commas
    /// outside the brackets.
    static func splitOperands(_ text: String, brackets: String = "()") -> [String] {
        var result: [String] = []
        var current = ""
        var depth = 0
        let opening = Set(brackets.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
        let closing = Set(brackets.enumerated().filter { $0.offset % 2 == 1 }.map(\.element))
        for character in text {
            switch character {
            case _ where opening.contains(character): depth += 1
            case _ where closing.contains(character): depth -= 1
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
