import PerfReport
import Testing

@testable import Harness

@Suite struct BaselineGateTests {
    let comparator = Comparator(thresholdPercent: 2)

    func gate(_ baseline: [BenchmarkResult], _ current: [BenchmarkResult], metrics: [Metric] = [.instructions])
        -> Comparison
    {
        BaselineGate.compare(
            baseline: GateFixtures.report(baseline), current: GateFixtures.report(current), metrics: metrics,
            comparator: comparator)
    }

    func entry(_ comparison: Comparison, _ id: String, _ metric: Metric) -> ComparisonEntry? {
        comparison.entries.first { $0.id == id && $0.metric == metric }
    }

    @Test func moreInstructionsBeyondTheThresholdRegressWhateverTheTimes() throws {
        // Wall times wildly different (another machine), instruction counts 5% up: the counts decide.
        let comparison = gate(
            [GateFixtures.result("S/g/a", nanosecondsPerOperation: [10, 10, 10], instructions: 1000)],
            [GateFixtures.result("S/g/a", nanosecondsPerOperation: [50, 55, 60], instructions: 1050)])
        let verdict = try #require(entry(comparison, "S/g/a", .instructions))
        #expect(verdict.verdict == .regressed)
        #expect(verdict.ratio == 1.05)
        #expect(verdict.pValue == nil)
        #expect(comparison.hasRegression)
    }

    @Test func identicalCountsPassEvenWhenTimesDiffer() throws {
        let comparison = gate(
            [GateFixtures.result("S/g/a", nanosecondsPerOperation: [10, 10, 10], instructions: 1000, allocations: 2)],
            [GateFixtures.result("S/g/a", nanosecondsPerOperation: [30, 31, 32], instructions: 1000, allocations: 2)],
            metrics: [.instructions, .allocations])
        #expect(entry(comparison, "S/g/a", .instructions)?.verdict == .noChange)
        #expect(entry(comparison, "S/g/a", .allocations)?.verdict == .noChange)
        #expect(comparison.entries.count == 2)
        #expect(!comparison.hasRegression)
    }

    @Test func changesBelowTheThresholdDoNotFail() {
        let comparison = gate(
            [GateFixtures.result("S/g/a", instructions: 1000)], [GateFixtures.result("S/g/a", instructions: 1015)])
        #expect(entry(comparison, "S/g/a", .instructions)?.verdict == .noChange)
    }

    @Test func oneMoreAllocationPerOperationRegresses() {
        let comparison = gate(
            [GateFixtures.result("S/g/a", allocations: 1)], [GateFixtures.result("S/g/a", allocations: 2)],
            metrics: [.allocations])
        #expect(entry(comparison, "S/g/a", .allocations)?.verdict == .regressed)
    }

    @Test func aBenchmarkPerThresholdIsHonoured() {
        let comparison = gate(
            [GateFixtures.result("S/g/a", thresholdPercent: 10, instructions: 1000)],
            [GateFixtures.result("S/g/a", thresholdPercent: 10, instructions: 1050)])
        let verdict = entry(comparison, "S/g/a", .instructions)
        #expect(verdict?.verdict == .noChange)
        #expect(verdict?.thresholdPercent == 10)
        let summary = GateSummary.markdown(comparison, title: "gate")
        #expect(summary.contains("Benchmarks with their own threshold:\n- `S/g/a`: 10%"))
    }

    @Test func benchmarksWithoutTheMetricAreSkippedWithANoteNotFailed() {
        let comparison = gate(
            [
                GateFixtures.result("S/g/counted", instructions: 1000),
                GateFixtures.result("S/g/uncounted-now", instructions: 1000),
                GateFixtures.result("S/g/removed", instructions: 1000),
                GateFixtures.result("S/g/other-counter", instructions: 1000, instructionsSource: "perf_event"),
            ],
            [
                GateFixtures.result("S/g/counted", instructions: 1000),
                GateFixtures.result("S/g/uncounted-now", nanosecondsPerOperation: [90, 95, 99]),
                GateFixtures.result("S/g/added", instructions: 5000),
                GateFixtures.result("S/g/other-counter", instructions: 2000),
            ])
        #expect(comparison.entries.map(\.id) == ["S/g/counted"])
        #expect(!comparison.hasRegression)
        let skipped = comparison.skipped ?? []
        #expect(skipped.count == 4)
        #expect(skipped.contains { $0.hasPrefix("S/g/added: not in the baseline") })
        #expect(skipped.contains { $0.hasPrefix("S/g/removed: in the baseline but not in this run") })
        #expect(skipped.contains("S/g/uncounted-now: instructions not counted in this run"))
        #expect(skipped.contains { $0.hasPrefix("S/g/other-counter: instructions counted by perf_event") })
        let summary = GateSummary.markdown(comparison, title: "gate")
        #expect(summary.contains("Not gated (4):"))
        #expect(summary.contains("Verdicts by: instructions."))
    }

    @Test func noEntryFallsBackToWallTime() {
        // The plain comparator would compare wall time for a benchmark without counts; the gate must not.
        let comparison = gate(
            [GateFixtures.result("S/g/a", nanosecondsPerOperation: [10, 10, 10, 10, 10, 10])],
            [GateFixtures.result("S/g/a", nanosecondsPerOperation: [90, 90, 90, 90, 90, 90])],
            metrics: [.instructions, .allocations])
        #expect(comparison.entries.isEmpty)
        #expect(comparison.skipped?.count == 2)
    }

    /// The library names no flag: what to do about a skipped benchmark is the caller's to say.
    @Test func skippedNotesEndWithTheCallersRemedies() {
        let comparison = BaselineGate.compare(
            baseline: GateFixtures.report([GateFixtures.result("S/g/a", instructions: 1000)]),
            current: GateFixtures.report([
                GateFixtures.result("S/g/a"), GateFixtures.result("S/g/new", instructions: 1),
            ]),
            metrics: [.instructions], comparator: comparator,
            remedies: Remedies(measure: [.instructions: "count them"], refreshBaseline: "refresh it"))
        #expect(
            comparison.skipped == [
                "S/g/new: not in the baseline (refresh it)", "S/g/a: instructions not counted in this run (count them)",
            ])
    }
}
