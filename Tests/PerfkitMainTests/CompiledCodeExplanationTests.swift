import Foundation
import Harness
import PerfReport
import Testing

@testable import PerfkitMain

/// A count regression's grown functions get their compiled-code lines, or one note saying why not.
@Suite struct CompiledCodeExplanationTests {
    static func comparison() -> (Comparison, Report) {
        var entry = ComparisonEntry(
            id: "S/g/heap", metric: .instructions, thresholdPercent: 2, verdict: .regressed, explanation: "+24 %")
        entry.functionDifferential = FunctionDifferential(
            grown: [
                .init(
                    name: "Heap._bubbleDown", symbol: "$s4Heap11_bubbleDownyyF", baseExclusive: 3200,
                    currentExclusive: 4404, baseInclusive: 3600, currentInclusive: 4804)
            ], baseTotal: 5000, currentTotal: 6204)
        let comparison = Comparison(
            baselineCreatedAt: Date(timeIntervalSince1970: 0), baselineEnvironment: nil, thresholdPercent: 2,
            alpha: 0.05, multipleComparisonControl: "holm", entries: [entry])
        let report = ReportFixtures.report([])
        return (comparison, report)
    }

    @Test func withoutTheBaselinesBinaryEachDifferentialSaysHowToGetTheLines() throws {
        let (comparison, current) = Self.comparison()
        let explained = CompiledCodeExplanation.attach(
            to: comparison, current: current, baseBinary: nil, newBinary: PerfkitProcess.executable.path)
        let notes = try #require(explained.entries.first?.functionDifferential?.compiledCodeNotes)
        #expect(notes == [ComparisonWording.compiledCodeNotCompared(reason: nil)])
        #expect(notes[0].contains("--baseline-binary") && notes[0].contains("ci --against"))
        let markdown = GateSummary.markdown(explained, title: "t")
        #expect(markdown.contains("- compiled code not compared: give the baseline's executable"), "\(markdown)")
        #expect(explained.entries.first?.functionDifferential?.grown.first?.compiledCode == nil)
    }

    @Test func aMissingBaselineBinaryIsNamedInTheNote() throws {
        let (comparison, current) = Self.comparison()
        let explained = CompiledCodeExplanation.attach(
            to: comparison, current: current, baseBinary: "/nonexistent/old-benchmarks",
            newBinary: PerfkitProcess.executable.path)
        let note = try #require(explained.entries.first?.functionDifferential?.compiledCodeNotes?.first)
        #expect(note == "compiled code not compared: /nonexistent/old-benchmarks: no such file")
    }

    @Test func theLinesAreListedUnderTheirFunctionInTheSummaryAndTheTerminal() {
        var (comparison, _) = Self.comparison()
        comparison.entries[0].functionDifferential?.grown[0].compiledCode = [
            "now calls swift_beginAccess 1× (was 0: exclusivity check), in a loop", "180 → 244 bytes",
        ]
        let markdown = GateSummary.markdown(comparison, title: "t")
        #expect(
            markdown.contains(
                "- `Heap._bubbleDown` +1,204 instr/op (exclusive, +37.6 %; inclusive +1,204)\n"
                    + "  - compiled code: now calls swift_beginAccess 1× (was 0: exclusivity check), in a loop\n"
                    + "  - compiled code: 180 → 244 bytes"), "\(markdown)")
        let text = ComparisonText.render(comparison)
        #expect(text.contains("compiled code: 180 → 244 bytes"), "\(text)")
    }
}
