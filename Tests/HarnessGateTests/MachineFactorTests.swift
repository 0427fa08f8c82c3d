import Foundation
import PerfReport
import Testing

@testable import Harness

/// The wall-time gate on a host that moves between processes: each process's machine factor,
/// from the other benchmarks measured in it, is divided out before the processes' spread is used
/// (issue #51).
@Suite struct MachineFactorTests {
    let gate = RegressionGate(basis: .time(.wallTime))

    static let ids = (0..<8).map { "S/g/bench\($0)" }

    /// A benchmark's own level in a process, besides the machine: ±1.5%, deterministic per
    /// benchmark, process and draw (its hash seed and layout in that process).
    static func ownNoise(_ benchmark: Int, _ process: Int, draw: Int) -> Double {
        let x = sin(Double(benchmark * 97 + process * 31 + draw * 1013 + 7) * 12.9898) * 43758.5453
        return 1 + 0.015 * (2 * (x - x.rounded(.down)) - 1)
    }

    /// A report of ``ids`` in one process per entry of `machine` (that process's machine level for
    /// every benchmark), each benchmark at 100·(its index + 1) ns times `ratios[id]`, 6 samples a
    /// process spread ±0.5%.
    static func report(machine: [Double], ratios: [String: Double] = [:], draw: Int) -> Report {
        let results = ids.enumerated().map { index, id in
            let medians = machine.enumerated().map { process, level in
                100 * Double(index + 1) * level * ownNoise(index, process, draw: draw) * (ratios[id] ?? 1)
            }
            return GateFixtures.resultInProcesses(id, medians: medians, relativeSpread: 0.005)
        }
        return GateFixtures.report(results)
    }

    static let twoLevels = [1.0, 1.3, 1.0, 1.3, 1.0, 1.3, 1.0, 1.3, 1.0, 1.3]
    static let steady = [Double](repeating: 1, count: 10)

    func verdicts(_ decision: RegressionGate.Decision) -> [String: ComparisonEntry.Verdict] {
        Dictionary(uniqueKeysWithValues: decision.comparison.entries.map { ($0.id, $0.verdict) })
    }

    @Test func aHostOfTwoLevelsGivesTheVerdictsOfASteadyOne() throws {
        let regressed = Self.ids[3]
        var expected = Dictionary(uniqueKeysWithValues: Self.ids.map { ($0, ComparisonEntry.Verdict.noChange) })
        expected[regressed] = .regressed
        // The same machine mix on both sides, the candidate in 4 processes; then a candidate of 3
        // processes mostly at the fast level, then a steady host.
        let hosts: [(baseline: [Double], current: [Double])] = [
            (Self.twoLevels, [1.0, 1.3, 1.0, 1.3]), (Self.twoLevels, [1.0, 1.3, 1.0]),
            (Self.steady, [1, 1, 1]),
        ]
        for host in hosts {
            let baseline = Self.report(machine: host.baseline, draw: 0)
            let current = Self.report(machine: host.current, ratios: [regressed: 1.1], draw: 1)
            let decision = gate.decide(baseline: baseline, current: current)
            #expect(verdicts(decision) == expected, "host \(host)")
            let entry = try #require(decision.comparison.entries.first { $0.id == regressed })
            #expect(abs((entry.ratio ?? 0) - 1.1) < 0.03)
            guard case .relative(let factors, _, let bound)? = entry.reason.processLevels else {
                Issue.record("not compared on relative levels: \(entry.reason)")
                continue
            }
            #expect(factors.baseline.count == host.baseline.count && factors.current.count == host.current.count)
            #expect(bound == ProcessFactors.factorBoundPercent)
            #expect(entry.explanation.contains("levels relative to the machine's factor in each process"))

            let unchanged = gate.decide(baseline: baseline, current: Self.report(machine: host.current, draw: 2))
            #expect(!unchanged.comparison.hasRegression, "host \(host)")
            #expect(unchanged.comparison.entries.allSatisfy { $0.verdict == .noChange }, "host \(host)")
        }
    }

    /// Without the factors (the raw levels, today's rule), the two levels' spread hides the +10%.
    @Test func theRawLevelsOfTwoLevelsCannotSeeTenPercent() throws {
        let regressed = Self.ids[3]
        let baseline = Self.report(machine: Self.twoLevels, draw: 0)
        let current = Self.report(machine: [1.0, 1.3, 1.0, 1.3], ratios: [regressed: 1.1], draw: 1)
        let entry = try #require(
            gate.decide(baseline: baseline, current: current).comparison.entries.first { $0.id == regressed })
        guard case .relative(_, let raw?, _)? = entry.reason.processLevels else {
            Issue.record("no raw interval: \(entry.reason)")
            return
        }
        #expect(raw.lower < 1 && raw.upper > 1.2)
        #expect(entry.explanation.contains("(raw levels: CI "))
    }

    @Test func tooFewOtherBenchmarksFallBackToTheRawLevelsAndSaySo() throws {
        let few = Array(Self.ids.prefix(3))
        func keep(_ report: Report) -> Report {
            var report = report
            report.benchmarks = report.benchmarks.filter { few.contains($0.id) }
            return report
        }
        let baseline = keep(Self.report(machine: Self.twoLevels, draw: 0))
        let current = keep(Self.report(machine: [1.0, 1.3, 1.0], ratios: [few[1]: 1.1], draw: 1))
        let decision = gate.decide(baseline: baseline, current: current)
        for entry in decision.comparison.entries {
            #expect(entry.reason.processLevels == .raw(otherBenchmarks: 2, minimum: 3))
            #expect(entry.explanation.contains("raw process levels: only 2 other benchmarks shared a process"))
            #expect(entry.verdict != .regressed)
        }

        // A second look measures the suspects alone: its one process has no fellows to divide by.
        let suspect = keep(Self.report(machine: [1.0], ratios: [few[1]: 1.1], draw: 3))
        let alone = Report(copying: suspect, benchmarks: suspect.benchmarks.filter { $0.id == few[1] })
        let entry = try #require(
            gate.decide(baseline: baseline, current: alone).comparison.entries.first { $0.id == few[1] })
        #expect(entry.reason.processLevels == .raw(otherBenchmarks: 0, minimum: 3))
        #expect(entry.explanation.contains("only 0 other benchmarks shared a process"))
    }

    /// `run`'s second look measures the suspects in one more process with companions, whose levels
    /// give that process's factor: the regression is confirmed on relative levels.
    @Test func aSecondLookWithCompanionsConfirmsOnRelativeLevels() throws {
        let regressed = Self.ids[3]
        let baseline = Self.report(machine: Self.twoLevels, draw: 0)
        let current = Self.report(machine: [1.0, 1.3, 1.0, 1.3], ratios: [regressed: 1.1], draw: 1)
        var measured: [String] = []
        let decision = gate.decide(baseline: baseline, current: current) { suspects in
            measured = suspects + ProcessFactors.companions(of: suspects, among: Self.ids)
            var again = Self.report(machine: [1.3], ratios: [regressed: 1.1], draw: 4)
            again.benchmarks = again.benchmarks.filter { measured.contains($0.id) }
            return RegressionGate.Remeasured(baseline: baseline, current: again)
        }
        #expect(measured == [regressed] + Self.ids.prefix(3))
        #expect(decision.remeasured)
        #expect(decision.comparison.entries.filter { $0.verdict == .regressed }.map(\.id) == [regressed])
        let entry = try #require(decision.comparison.entries.first { $0.id == regressed })
        guard case .rerunConfirmed(let first)? = entry.reason.reviews.last else {
            Issue.record("not confirmed: \(entry.explanation)")
            return
        }
        #expect(abs((first ?? 0) - 1.1) < 0.03)
        #expect(entry.explanation.hasPrefix("confirmed by a re-run: "))
        #expect(ProcessFactors.companions(of: ["a"], among: ["a", "b", "c"]) == [])
        // Two suspects of four: both others come along, each suspect then shares its process with three.
        #expect(ProcessFactors.companions(of: ["b", "d"], among: ["a", "b", "c", "d"]) == ["a", "c"])
        #expect(ProcessFactors.companions(of: ["b", "c"], among: ["a", "b", "c"]) == [])
    }

    @Test func aFactorBeyondTheBoundIsNamedWithTheFactor() throws {
        let baseline = Self.report(machine: Self.steady, draw: 0)
        let current = Self.report(machine: [1.3, 1.0, 1.0], draw: 1)
        let entry = try #require(gate.decide(baseline: baseline, current: current).comparison.entries.first)
        guard case .relative(let factors, _, _)? = entry.reason.processLevels else {
            Issue.record("not relative: \(entry.reason)")
            return
        }
        #expect(abs(factors.current[0] - 1.3) < 0.03)
        #expect(entry.explanation.contains("the machine's factor moved beyond ±15.0% in this run's process 1 ×1.2"))
        #expect(!entry.explanation.contains("process 2 ×"))
        // One process of three 30% slower moved every benchmark's raw level 9%: the machine, or a
        // change that slowed everything, which time cannot tell apart (the shared-slowdown rule).
        #expect(entry.verdict == .inconclusive)
        #expect(entry.explanation.contains("the other 7 benchmarks were slower too"))
    }

    @Test func exactCountsAreNotDivided() throws {
        var baseline = Self.report(machine: Self.twoLevels, draw: 0)
        var current = Self.report(machine: [1.3, 1.0, 1.3], draw: 1)
        for index in baseline.benchmarks.indices {
            baseline.benchmarks[index].instructionsPerOperation = 1000
            current.benchmarks[index].instructionsPerOperation = index == 2 ? 1100 : 1000
        }
        let counts = RegressionGate(basis: .counts([.instructions], remedies: Remedies()))
        let comparison = counts.decide(baseline: baseline, current: current).comparison
        #expect(comparison.entries.filter { $0.verdict == .regressed }.map(\.id) == [Self.ids[2]])
        #expect(comparison.entries.allSatisfy { $0.reason.processLevels == nil })
        #expect(counts.caveats(baseline: baseline, current: current) == [])
    }

    // MARK: - A single process

    @Test func aSideInOneProcessIsACaveat() throws {
        let inProcesses = Self.report(machine: Self.twoLevels, draw: 0)
        let single = Self.report(machine: [1], draw: 1)
        #expect(gate.caveats(baseline: inProcesses, current: Self.report(machine: [1, 1, 1], draw: 2)) == [])
        #expect(gate.caveats(baseline: single, current: inProcesses) == [.singleProcess(sides: [.baseline])])
        #expect(gate.caveats(baseline: inProcesses, current: single) == [.singleProcess(sides: [.current])])
        // Samples without process tags (`run` without --processes) are one process too.
        let untagged = GateFixtures.report([GateFixtures.result("S/g/a")])
        #expect(
            gate.caveats(baseline: untagged, current: untagged) == [.singleProcess(sides: [.baseline, .current])])

        var report = single
        report.comparison = gate.decide(baseline: single, current: single).comparison
        report.comparison?.caveats = gate.caveats(baseline: single, current: single)
        let lines = FindingsText.text(report).split(separator: "\n").filter { $0.contains("one process") }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("note: the baseline and this run were each measured in one process") == true)
        #expect(lines.first?.contains("--processes") == true)
        let summary = GateSummary.markdown(try #require(report.comparison), title: "t")
        #expect(summary.contains("cannot be told from a change"))
    }
}

extension Report {
    /// `report` with other benchmarks.
    init(copying report: Report, benchmarks: [BenchmarkResult]) {
        self = report
        self.benchmarks = benchmarks
    }
}
