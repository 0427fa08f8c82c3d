import Foundation
import PerfReport
import Testing

@testable import Harness

/// The whole decision, driven with a fake re-measure closure: no process is started.
@Suite struct RegressionGateTests {
    let gate = RegressionGate(basis: .time(.cpuTime))

    /// Benchmarks whose current side is `ratio` times the baseline, samples spread ±2% (`phase`
    /// shifts the current side's spread, a second draw of the same levels).
    static func reports(_ ratios: [String: Double], phase: Int = 0) -> (baseline: Report, current: Report) {
        let ids = ratios.keys.sorted()
        let baseline = ids.map {
            GateFixtures.result(
                $0, nanosecondsPerOperation: GateFixtures.spread(count: 24, mean: 100, relativeSpread: 0.02))
        }
        let current = ids.map { id in
            GateFixtures.result(
                id,
                nanosecondsPerOperation: GateFixtures.spread(
                    count: 24, mean: 100 * ratios[id]!, relativeSpread: 0.02, phase: phase))
        }
        return (GateFixtures.report(baseline), GateFixtures.report(current))
    }

    /// A re-measure closure that records what it was asked for and answers with `ratios`.
    final class FakeRemeasure: @unchecked Sendable {
        var asked: [[String]] = []
        let ratios: [String: Double]?

        init(_ ratios: [String: Double]?) { self.ratios = ratios }

        func callAsFunction(_ suspects: [String]) -> RegressionGate.Remeasured? {
            asked.append(suspects)
            guard let ratios else { return nil }
            let again = RegressionGateTests.reports(ratios.filter { suspects.contains($0.key) }, phase: 3)
            return RegressionGate.Remeasured(baseline: again.baseline, current: again.current)
        }
    }

    func entry(_ decision: RegressionGate.Decision, _ id: String) throws -> ComparisonEntry {
        try #require(decision.comparison.entries.first { $0.id == id })
    }

    @Test func aRegressionTheSecondLookConfirmsFailsTheGate() throws {
        let (baseline, current) = Self.reports(["S/g/slower": 1.2, "S/g/same": 1.0, "S/g/faster": 0.8])
        let remeasure = FakeRemeasure(["S/g/slower": 1.2])
        let decision = gate.decide(baseline: baseline, current: current, remeasure: remeasure.callAsFunction)
        #expect(remeasure.asked == [["S/g/slower"]])
        #expect(decision.suspects == ["S/g/slower"])
        #expect(decision.remeasured)
        let slower = try entry(decision, "S/g/slower")
        #expect(slower.verdict == .regressed)
        #expect(slower.metric == .cpuTime)
        #expect(slower.reason.reviews.last == .rerunConfirmed(firstRatio: 1.2))
        #expect(slower.explanation.hasPrefix("confirmed by a re-run: "))
        #expect(try entry(decision, "S/g/faster").verdict == .improved)
        #expect(try entry(decision, "S/g/same").verdict == .noChange)
        #expect(decision.status == .regressed)
        #expect(decision.status.rawValue == 2)
    }

    @Test func aRegressionTheSecondLookDoesNotFindPasses() throws {
        // A neighbour's burst made the first look 20% slower; the second sees no change.
        let (baseline, current) = Self.reports(["S/g/flaky": 1.2, "S/g/same": 1.0])
        let remeasure = FakeRemeasure(["S/g/flaky": 1.0])
        let decision = gate.decide(baseline: baseline, current: current, remeasure: remeasure.callAsFunction)
        let flaky = try entry(decision, "S/g/flaky")
        #expect(flaky.verdict == .noChange)
        #expect(flaky.reason.reviews == [.rerunDidNotConfirm(firstRatio: 1.2)])
        #expect(flaky.explanation.contains("was not confirmed by a re-run"))
        #expect(decision.comparison.entries.count == 2)
        #expect(decision.status == .passed)
    }

    @Test func aSuspectTheSecondLookMissedStaysRegressed() throws {
        let (baseline, current) = Self.reports(["S/g/slower": 1.2])
        let remeasure = FakeRemeasure([:])
        let decision = gate.decide(baseline: baseline, current: current, remeasure: remeasure.callAsFunction)
        let slower = try entry(decision, "S/g/slower")
        #expect(slower.verdict == .regressed)
        #expect(slower.reason.reviews == [.rerunMissing])
        #expect(slower.explanation.hasSuffix("so the regression stands"))
        #expect(decision.status == .regressed)
    }

    @Test func withoutASecondLookTheFirstVerdictStands() throws {
        let (baseline, current) = Self.reports(["S/g/slower": 1.2, "S/g/same": 1.0])
        let remeasure = FakeRemeasure(nil)  // interrupted, or re-runs turned off
        let decision = gate.decide(baseline: baseline, current: current, remeasure: remeasure.callAsFunction)
        #expect(remeasure.asked == [["S/g/slower"]])
        #expect(!decision.remeasured)
        #expect(try entry(decision, "S/g/slower").reason.reviews == [])
        #expect(decision.status == .regressed)
        #expect(gate.decide(baseline: baseline, current: current) == decision)
    }

    @Test func nothingRegressedIsNotMeasuredAgain() {
        let (baseline, current) = Self.reports(["S/g/a": 1.0, "S/g/b": 0.8])
        let remeasure = FakeRemeasure(["S/g/a": 1.0])
        let decision = gate.decide(baseline: baseline, current: current, remeasure: remeasure.callAsFunction)
        #expect(remeasure.asked.isEmpty)
        #expect(decision.suspects.isEmpty)
        #expect(decision.status == .passed)
    }

    /// Every benchmark 11% slower together: the machine's speed moved, as much as the code.
    @Test func aSlowdownTheWholeRunSharesIsInconclusiveAndNotMeasuredAgain() {
        let (baseline, current) = Self.reports(["c/a/x": 1.11, "c/b/y": 1.11, "c/c/z": 1.12, "c/d/w": 1.10])
        let remeasure = FakeRemeasure(["c/a/x": 1.0])
        let decision = gate.decide(baseline: baseline, current: current, remeasure: remeasure.callAsFunction)
        #expect(remeasure.asked.isEmpty)
        #expect(decision.comparison.entries.allSatisfy { $0.verdict == .inconclusive })
        #expect(
            decision.comparison.entries.allSatisfy {
                if case .withinSharedSlowdown(3, _, _) = $0.reason.reviews.last { true } else { false }
            })
        #expect(decision.status == .inconclusive)
        #expect(decision.status.rawValue == 3)
    }

    /// The current side waited for a CPU and its CPU time did not move: no verdict either way.
    @Test func aBusyMachineIsInconclusive() throws {
        let (baseline, quiet) = Self.reports(["S/g/x": 1.0])
        var busy = quiet
        for index in busy.benchmarks[0].samples.indices {
            busy.benchmarks[0].samples[index].wallNanoseconds *= 1.9  // half the time waiting
            busy.benchmarks[0].samples[index].involuntaryContextSwitches = 3
        }
        let remeasure = FakeRemeasure(["S/g/x": 1.0])
        let decision = RegressionGate().decide(baseline: baseline, current: busy, remeasure: remeasure.callAsFunction)
        let entry = try entry(decision, "S/g/x")
        #expect(entry.verdict == .inconclusive)
        #expect(entry.metric == .cpuTime)
        #expect(entry.reason.reviews == [.busyMachineInconclusive])
        guard case .busyMachine = entry.reason.substitution else {
            Issue.record("no busy-machine substitution: \(entry.explanation)")
            return
        }
        #expect(remeasure.asked.isEmpty)
        #expect(decision.status == .inconclusive)
    }

    @Test func aBaselineOfOtherBenchmarksIsRefused() throws {
        let (baseline, _) = Self.reports(["Other/g/a": 1.0])
        let refusal = try #require(throws: RegressionGate.Refusal.self) {
            try gate.admit(
                baseline: baseline, currentIDs: ["S/g/a"], timing: TimingConditions(of: baseline))
        }
        #expect(refusal.kind == .sharesNoBenchmark(baselineCount: 1, example: "Other/g/a"))
    }

    @Test func timesTakenUnderValgrindAreRefusedButCountsAreAdmitted() throws {
        var baseline = GateFixtures.report([GateFixtures.result("S/g/a", instructions: 1000)])
        baseline.benchmarks[0].instructionsSource = CallgrindInstructionCounter.source
        let native = TimingConditions(of: GateFixtures.report([GateFixtures.result("S/g/a")]))
        let refusal = try #require(throws: RegressionGate.Refusal.self) {
            try gate.admit(baseline: baseline, currentIDs: ["S/g/a"], timing: native)
        }
        guard case .incomparableTimes(let differences) = refusal.kind else {
            Issue.record("not refused for its times: \(refusal)")
            return
        }
        #expect(differences.first?.contains("under valgrind (callgrind)") == true)
        let counts = RegressionGate(basis: .counts([.instructions], remedies: Remedies()))
        try counts.admit(baseline: baseline, currentIDs: ["S/g/a"], timing: native)
    }

    /// On counts, a benchmark the baseline cannot be compared with is left out with a note, never failed.
    @Test func anIncomparableBenchmarkIsSkippedNotFailed() {
        let counts = RegressionGate(
            comparator: Comparator(thresholdPercent: 2), basis: .counts([.instructions], remedies: Remedies()))
        let baseline = GateFixtures.report([
            GateFixtures.result("S/g/a", instructions: 1000, instructionsSource: "perf_event"),
            GateFixtures.result("S/g/b", instructions: 1000),
        ])
        let current = GateFixtures.report([
            GateFixtures.result("S/g/a", instructions: 2000, instructionsSource: "callgrind"),
            GateFixtures.result("S/g/b", instructions: 1000),
        ])
        let remeasure = FakeRemeasure([:])
        let decision = counts.decide(baseline: baseline, current: current, remeasure: remeasure.callAsFunction)
        #expect(decision.comparison.entries.map(\.id) == ["S/g/b"])
        #expect(decision.comparison.skipped?.first?.hasPrefix("S/g/a: instructions counted by perf_event") == true)
        #expect(remeasure.asked.isEmpty)
        #expect(decision.status == .passed)
    }

    @Test func aCountRegressionIsDecidedWithoutASecondLook() throws {
        let counts = RegressionGate(
            comparator: Comparator(thresholdPercent: 2), basis: .counts([.instructions], remedies: Remedies()))
        let baseline = GateFixtures.report([GateFixtures.result("S/g/a", instructions: 1000)])
        let current = GateFixtures.report([GateFixtures.result("S/g/a", instructions: 1050)])
        let decision = counts.decide(baseline: baseline, current: current)
        #expect(try entry(decision, "S/g/a").verdict == .regressed)
        #expect(!decision.remeasured)
        #expect(decision.status == .regressed)
    }

    @Test func noComparisonPasses() {
        #expect(RegressionGate.Status(nil) == .passed)
    }
}
