import Foundation
import Testing

/// `perfkit explain-code` on the `perfkit` executable itself (its compiled variants are
/// PerfMachineCodeTests'): the line for identical code, a missing symbol, bad input.
extension CommandLineTests {
    @Test func explainCodeSaysNoCodeChangeForTheSameBinary() throws {
        let binary = Self.executable.path
        // `Perfkit.main()` of PerfkitCLI (`main` itself has no size in the symbol table).
        let outcome = try perfkit([
            "explain-code", "--base", binary, "--new", binary, "$s10PerfkitCLI0A0O4mainyyFZ", "$s1m7missingyyF",
        ])
        try #require(outcome.status == 0, "\(outcome.stderr)")
        let lines = outcome.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasSuffix("main(): no code change found: layout, data or the machine") == true)
        #expect(lines.last == "missing(): the base binary lacks $s1m7missingyyF")
    }

    @Test func explainCodeNamesTheBadFile() throws {
        let outcome = try perfkit([
            "explain-code", "--base", Self.executable.path, "--new", "/nonexistent/perfkit", "main",
        ])
        #expect(outcome.status == 1)
        #expect(outcome.stderr == "Error: --new /nonexistent/perfkit: no such file\n")
        let notELF = try perfkit([
            "explain-code", "--base", #filePath, "--new", Self.executable.path, "main",
        ])
        #expect(notELF.status == 1)
        #expect(notELF.stderr.hasPrefix("Error: --base \(#filePath): "))
        #expect(notELF.stderr.split(separator: "\n").count == 1)
    }
}
