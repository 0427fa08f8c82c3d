import PerfReport
import Testing

@testable import Harness

@Suite struct InstructionDeterminismTests {
    /// A result whose samples counted these instructions per operation (1000 iterations each).
    func counted(_ id: String, _ perOperation: [Double]) -> BenchmarkResult {
        var result = GateFixtures.result(
            id, nanosecondsPerOperation: perOperation.map { _ in 10 },
            instructions: perOperation.reduce(0, +) / Double(perOperation.count))
        for index in result.samples.indices { result.samples[index].instructions = perOperation[index] * 1000 }
        return result
    }

    @Test func countsThatMoveBetweenRunsOrSamplesAreMarked() {
        let first = GateFixtures.report([
            counted("S/g/steady", [1000, 1000, 1000]),
            counted("S/g/address-dependent", [1000, 1000, 1000]),
            counted("S/g/threaded", [1000, 1300, 900]),
            counted("S/g/malloc-residue", [1000, 1001, 1000]),
        ])
        let second = GateFixtures.report([
            counted("S/g/steady", [1000, 1000, 1000]),
            counted("S/g/address-dependent", [1270, 1270, 1270]),
            counted("S/g/threaded", [1000, 1000, 1000]),
            counted("S/g/malloc-residue", [1000, 1000, 1002]),
        ])
        let marked = InstructionDeterminism.marked(first, repeats: [second])
        let reasons = marked.benchmarks.map(InstructionDeterminism.unstableReason)
        #expect(reasons[0] == nil)
        #expect(reasons[1]?.contains("moved by 27.00% between 2 runs") == true)
        #expect(reasons[2]?.contains("between the samples of one run") == true)
        #expect(reasons[3] == nil)
    }

    @Test func theGateSkipsMarkedBaselinesAndUnsteadyCurrentRuns() {
        let baseline = InstructionDeterminism.marked(
            GateFixtures.report([
                counted("S/g/steady", [1000, 1000, 1000]), counted("S/g/threaded", [1000, 1300, 900]),
                counted("S/g/now-unsteady", [1000, 1000, 1000]),
            ]), repeats: [])
        let current = GateFixtures.report([
            counted("S/g/steady", [1100, 1100, 1100]), counted("S/g/threaded", [2000, 2000, 2000]),
            counted("S/g/now-unsteady", [1000, 1500, 1000]),
        ])
        let comparison = BaselineGate.compare(
            baseline: baseline, current: current, metrics: [.instructions], comparator: Comparator(thresholdPercent: 2))
        #expect(comparison.entries.map(\.id) == ["S/g/steady"])
        #expect(comparison.entries.first?.verdict == .regressed)
        let skipped = comparison.skipped ?? []
        #expect(skipped.contains { $0.hasPrefix("S/g/threaded: in the baseline, instructions per operation moved") })
        #expect(skipped.contains { $0.hasPrefix("S/g/now-unsteady: instructions per operation moved by 50.00%") })
    }

    /// #51's count trials: one +5% run whose samples disagreed by 0.6% was "not gated"; a wobble
    /// smaller than the change, with every sample beyond the threshold, still gates.
    @Test func aWobbleSmallerThanTheChangeStillGates() throws {
        let baseline = InstructionDeterminism.marked(
            GateFixtures.report([counted("S/g/drain", [1000, 1000, 1000]), counted("S/g/near", [1000, 1000, 1000])]),
            repeats: [])
        let current = GateFixtures.report([
            counted("S/g/drain", [1050, 1056.3, 1051]), counted("S/g/near", [1010, 1030, 1012]),
        ])
        let comparison = BaselineGate.compare(
            baseline: baseline, current: current, metrics: [.instructions], comparator: Comparator(thresholdPercent: 2))
        let drain = try #require(comparison.entries.first { $0.id == "S/g/drain" })
        #expect(drain.verdict == .regressed)
        #expect(
            drain.explanation.hasSuffix("this run's samples disagreed by 0.60%, but every one lay beyond the threshold")
        )
        // Straddling the threshold: the wobble could be the change, so it is not gated.
        #expect(comparison.entries.allSatisfy { $0.id != "S/g/near" })
        #expect((comparison.skipped ?? []).contains { $0.hasPrefix("S/g/near: instructions per operation moved by") })
    }

    @Test func allocationCountsThatMoveBetweenRunsAreMarkedAndNotGated() {
        let first = GateFixtures.report([
            GateFixtures.result("S/g/cache", instructions: 1000, allocations: 1800),
            GateFixtures.result("S/g/steady", instructions: 1000, allocations: 2),
            GateFixtures.result("S/g/residue", instructions: 1000, allocations: 0.01),
        ])
        let second = GateFixtures.report([
            GateFixtures.result("S/g/cache", instructions: 1000, allocations: 1866),
            GateFixtures.result("S/g/steady", instructions: 1000, allocations: 2),
            GateFixtures.result("S/g/residue", instructions: 1000, allocations: 0.02),
        ])
        let baseline = InstructionDeterminism.marked(first, repeats: [second])
        let reasons = baseline.benchmarks.map(InstructionDeterminism.unstableAllocationsReason)
        #expect(reasons[0]?.hasPrefix("allocations per operation moved by 3.67% between 2 runs") == true)
        #expect(reasons[1] == nil)
        #expect(reasons[2] == nil)
        let comparison = BaselineGate.compare(
            baseline: baseline, current: second, metrics: [.allocations], comparator: Comparator(thresholdPercent: 2))
        #expect(comparison.entries.map(\.id) == ["S/g/residue", "S/g/steady"])
        #expect(comparison.skipped?.contains { $0.hasPrefix("S/g/cache: in the baseline, allocations per") } == true)
    }
}
