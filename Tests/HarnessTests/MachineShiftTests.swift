import Foundation
import PerfReport
import Testing

@testable import Harness

/// A time regression that every benchmark of the run shares is the machine as much as the code.
@Suite struct MachineShiftTests {
    let gate = RegressionGate()

    static func report(_ levels: [String: (baseline: [Double], current: [Double])]) -> (Report, Report) {
        var seed: UInt64 = 11
        var baseline: [BenchmarkResult] = []
        var current: [BenchmarkResult] = []
        for (id, level) in levels.sorted(by: { $0.key < $1.key }) {
            seed &+= 100
            baseline.append(ProcessLevelComparisonTests.result(id, levels: level.baseline, seed: seed))
            current.append(ProcessLevelComparisonTests.result(id, levels: level.current, seed: seed &+ 50))
        }
        return (Synthetic.report(baseline), Synthetic.report(current))
    }

    static let quiet: [Double] = [100, 100.5, 99.5, 100.2, 99.8, 100.1, 99.9, 100.3, 99.7, 100]

    /// #36's trials: the host 11% slower for every benchmark — none of them regressed.
    @Test func everyBenchmarkSlowerTogetherIsInconclusive() {
        let slower = [111.0, 111.5, 110.5]
        let (baseline, current) = Self.report([
            "c/deque/churn": (Self.quiet, slower), "c/set/dedupe": (Self.quiet, slower.map { $0 * 1.02 }),
            "c/heap/drain": (Self.quiet, slower), "c/sort/ints": (Self.quiet, slower.map { $0 * 0.99 }),
        ])
        let entries = gate.compare(baseline: baseline, current: current).entries
        #expect(entries.count == 4)
        #expect(entries.allSatisfy { $0.verdict == .inconclusive }, "\(entries.map(\.verdict))")
        #expect(entries.allSatisfy { $0.explanation.contains("the other 3 benchmarks were slower too") })
    }

    /// The trials' case: the others 3% slower, the regressed one 18% — beyond the threshold still.
    @Test func aRegressionBeyondTheMachinesShareStands() {
        let slower = [103.0, 103.2, 102.8]
        let (baseline, current) = Self.report([
            "c/deque/churn": (Self.quiet, slower), "c/set/dedupe": (Self.quiet, slower),
            "c/heap/drain": (Self.quiet, [118.0, 118.4, 117.8]), "c/sort/ints": (Self.quiet, slower),
        ])
        let entries = gate.compare(baseline: baseline, current: current).entries
        let heap = entries.first { $0.id == "c/heap/drain" }
        #expect(heap?.verdict == .regressed)
        #expect(heap?.explanation.contains("beyond the threshold still") == true)
    }

    /// A change confined to one benchmark stands when the others did not move.
    @Test func oneBenchmarkSlowerAloneStaysARegression() {
        let same = [100.1, 99.9, 100.2]
        let (baseline, current) = Self.report([
            "c/deque/churn": (Self.quiet, same), "c/set/dedupe": (Self.quiet, same),
            "c/heap/drain": (Self.quiet, [110.0, 110.4, 109.8]), "c/sort/ints": (Self.quiet, same),
        ])
        let entries = gate.compare(baseline: baseline, current: current).entries
        let heap = entries.first { $0.id == "c/heap/drain" }
        #expect(heap?.verdict == .regressed)
        #expect(entries.filter { $0.verdict == .regressed }.count == 1)
    }

    /// Too few others say nothing about the machine: the sample-level verdicts stand.
    @Test func twoBenchmarksAreLeftAlone() {
        let slower = [111.0, 111.5, 110.5]
        let (baseline, current) = Self.report(["c/a/x": (Self.quiet, slower), "c/b/y": (Self.quiet, slower)])
        let entries = gate.compare(baseline: baseline, current: current).entries
        #expect(entries.allSatisfy { $0.verdict == .regressed })
    }
}
