import ArgumentParser
import Foundation
import PerfMachineCode

/// `perfkit explain-code --base BIN --new BIN SYMBOL…`: what changed in each function's machine
/// code between two builds, one line per function (docs/regression-gate.md, "Why it grew").
package struct ExplainCodeCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "explain-code",
        abstract: "Compare functions' machine code in two builds: calls, inlining, specialization, size.",
        discussion: """
            Each SYMBOL is a mangled function name in the base binary (as a profile names it). When the \
            new binary lacks it, the function that replaced it is compared: the generic a lost \
            specialization was made from, else the function of the same name. Needs llvm-objdump \
            (next to swift) and binaries with a symbol table.
            """
    )

    @Option(help: "The base build's executable (or shared library).")
    var base: String

    @Option(help: "The new build's executable (or shared library).")
    var new: String

    @Argument(help: "Mangled function symbols to compare.")
    var symbols: [String]

    package init() {}

    package func validate() throws {
        if symbols.isEmpty { throw ValidationError("give at least one SYMBOL to compare") }
    }

    package func run() throws {
        var comparer: CompiledCodeComparer
        do {
            comparer = try CompiledCodeComparer(basePath: base, newPath: new)
        } catch {
            // "--base build/old: not an ELF file": the option as well as the file.
            let option = error.path == nil ? "" : error.path == base ? "--base " : "--new "
            let kind: PerfkitError.Kind = error.kind == .objdumpNotFound ? .missingTool : .invalidInput
            throw PerfkitError(kind, option + error.message, cause: error)
        }
        for symbol in symbols { print(comparer.compare(symbol).summary) }
    }
}
