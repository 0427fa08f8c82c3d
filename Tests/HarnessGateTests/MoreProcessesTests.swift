import Foundation
import PerfReport
import Testing

@testable import Harness

/// The gate's later looks (issue #61): what the first look leaves within noise, because a benchmark's
/// processes lie far apart (its layout, its hash seed), is measured in more processes until decided.
@Suite struct MoreProcessesTests {
    static let ids = ["S/g/heap"] + (1..<6).map { "S/g/other\($0)" }
    let gate = RegressionGate(basis: .time(.wallTime))

    /// A benchmark's own level in a process: normal around 1 with `spread` (log scale), seeded by
    /// benchmark, side and process so that every test run draws the same.
    static func ownLevel(_ benchmark: Int, _ process: Int, seed: UInt64, spread: Double) -> Double {
        var generator = SplitMix64(seed: seed &* 1_000_003 &+ UInt64(benchmark * 7919 + process))
        let u1 = max(Double(generator.next() >> 11) / Double(1 << 53), 1e-12)
        let u2 = Double(generator.next() >> 11) / Double(1 << 53)
        return exp(spread * (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2))
    }

    /// `processes` processes of `ids` (the heap first, its own spread `heapSpread`, the others ±1%),
    /// on a steady machine, each benchmark at 100·(index + 1) ns times `ratios[id]`; 6 samples a process.
    static func report(
        processes: Int, ids: [String] = ids, ratios: [String: Double] = [:], heapSpread: Double, seed: UInt64
    ) -> Report {
        let results = ids.map { id in
            let index = Self.ids.firstIndex(of: id)!
            let medians = (0..<processes).map { process in
                100 * Double(index + 1) * ownLevel(index, process, seed: seed, spread: index == 0 ? heapSpread : 0.01)
                    * (ratios[id] ?? 1)
            }
            return GateFixtures.resultInProcesses(id, medians: medians, relativeSpread: 0.003)
        }
        return GateFixtures.report(results)
    }

    func entry(_ decision: RegressionGate.Decision, _ id: String = ids[0]) throws -> ComparisonEntry {
        try #require(decision.comparison.entries.first { $0.id == id })
    }

    /// A baseline of `baselineProcesses` and 3 candidate processes of +25% on the heap, whose processes
    /// lie 10% apart, and the first look, which leaves the heap within noise.
    func heapWithinNoiseAtFirst(baselineProcesses: Int) throws -> (Report, Report, RegressionGate.Decision) {
        let baseline = Self.report(processes: baselineProcesses, heapSpread: 0.1, seed: 1)
        let current = Self.report(processes: 3, ratios: [Self.ids[0]: 1.25], heapSpread: 0.1, seed: 2)
        let first = gate.decide(baseline: baseline, current: current)
        let firstHeap = try entry(first)
        #expect(firstHeap.verdict == .withinNoise, "\(firstHeap.explanation)")
        return (baseline, current, first)
    }

    /// +25% on a benchmark whose processes lie 10% apart: three candidate processes, one draw, cannot
    /// tell it; more processes, each a draw once the machine's factor is divided out, do.
    @Test func aSlowdownTheFirstLookCannotTellIsDecidedByMoreProcesses() throws {
        let heap = Self.ids[0]
        let (baseline, current, first) = try heapWithinNoiseAtFirst(baselineProcesses: 10)
        #expect(gate.moreProcesses.undecided(first.comparison, interleaved: false) == [heap])

        var asked: [[String]] = []
        let decided = gate.decideUndecided(first, baseline: baseline, current: current, interleaved: false) { ids in
            asked.append(ids)
            let again = Self.report(
                processes: 2, ids: ids, ratios: [heap: 1.25], heapSpread: 0.1, seed: 10 + UInt64(asked.count))
            return RegressionGate.Remeasured(baseline: baseline, current: again)
        }
        let later = try entry(decided)
        #expect(later.verdict == .regressed, "\(later.explanation)")
        #expect(asked.first == [heap] + Self.ids[1...3])
        guard case .moreProcesses(let firstProcesses, let added, let looks, false, true)? = later.reason.reviews.last
        else {
            Issue.record("no review of the later looks: \(later.reason.reviews)")
            return
        }
        #expect(firstProcesses == ComparisonReason.PerSide(baseline: 10, current: 3))
        #expect(looks == asked.count && looks <= gate.moreProcesses.maximumLooks && added == 2 * looks)
        guard case .tested(_, let interval, let processes?, _, _) = later.reason.finding else {
            Issue.record("not tested in processes: \(later.reason.finding)")
            return
        }
        #expect(processes.current == 3 + 2 * looks)
        // The look tested the heap alone: its companions, measured for the machine's factor, are no tests.
        #expect(later.adjustedPValue == later.pValue, "\(later.explanation)")
        // Each look's interval is at the level that keeps all looks together at 99% (a fifth of the 5%).
        #expect(abs(interval.level - (1 - 0.01 / Double(gate.moreProcesses.maximumLooks))) < 1e-9)
        #expect(
            later.explanation.hasPrefix(
                "undecided after 3 processes, decided by \(added) more processes (\(looks) looks)"))
        // The other benchmarks keep their first verdicts.
        for id in Self.ids.dropFirst() { #expect(try entry(decided, id) == entry(first, id)) }
    }

    /// The machine 20% slower for every benchmark of the candidate and +25% on the heap: relative levels
    /// leave it within noise, raw ones beyond no change, so the shared-slowdown review makes it
    /// inconclusive; more processes still measure it, and decide it (the moving host's +5%, 2026-12-05).
    @Test func aSlowdownInconclusiveBesideASharedOneIsStillMeasured() throws {
        let heap = Self.ids[0]
        var slower: [String: Double] = [:]
        for id in Self.ids { slower[id] = 1.2 }
        slower[heap] = 1.2 * 1.25
        let baseline = Self.report(processes: 10, heapSpread: 0.1, seed: 1)
        let current = Self.report(processes: 3, ratios: slower, heapSpread: 0.1, seed: 2)
        let first = gate.decide(baseline: baseline, current: current)
        let firstHeap = try entry(first)
        #expect(firstHeap.verdict == .inconclusive, "\(firstHeap.explanation)")
        guard case .withinSharedSlowdown? = firstHeap.reason.reviews.first else {
            Issue.record("no shared-slowdown review: \(firstHeap.explanation)")
            return
        }
        #expect(gate.moreProcesses.undecided(first.comparison, interleaved: false) == [heap])

        var looks = 0
        let decided = gate.decideUndecided(first, baseline: baseline, current: current, interleaved: false) { ids in
            looks += 1
            let again = Self.report(processes: 2, ids: ids, ratios: slower, heapSpread: 0.1, seed: 10 + UInt64(looks))
            return RegressionGate.Remeasured(baseline: baseline, current: again)
        }
        let later = try entry(decided)
        #expect(later.verdict == .regressed, "\(later.explanation)")
        #expect(later.explanation.hasPrefix("undecided after 3 processes, decided by"), "\(later.explanation)")
    }

    /// A regression the re-run of one process did not confirm is within noise, not decided: looks measure
    /// it, counting the re-run's process as one more draw (the quiet host's +5% stopped there, 3 of 10, 2026-12-07).
    @Test func aRegressionTheRerunDidNotConfirmIsStillMeasured() throws {
        let heap = Self.ids[0]
        let (baseline, current, first) = try heapWithinNoiseAtFirst(baselineProcesses: 10)
        var rerunFirst = first
        rerunFirst.rerun = Self.report(
            processes: 1, ids: Array(Self.ids[0...3]), ratios: [heap: 1.25], heapSpread: 0.1, seed: 7)
        rerunFirst.comparison.entries = first.comparison.entries.map { entry in
            var reviewed = entry
            if entry.id == heap { reviewed.review(.rerunDidNotConfirm(firstRatio: 1.3)) }
            return reviewed
        }
        #expect(gate.moreProcesses.undecided(rerunFirst.comparison, interleaved: false) == [heap])

        var looks = 0
        let decided = gate.decideUndecided(rerunFirst, baseline: baseline, current: current, interleaved: false) {
            ids in
            looks += 1
            let again = Self.report(
                processes: 2, ids: ids, ratios: [heap: 1.25], heapSpread: 0.1, seed: 30 + UInt64(looks))
            return RegressionGate.Remeasured(baseline: baseline, current: again)
        }
        let later = try entry(decided)
        #expect(later.verdict == .regressed, "\(later.explanation)")
        guard case .tested(_, _, let processes?, _, _) = later.reason.finding else {
            Issue.record("not tested in processes: \(later.reason.finding)")
            return
        }
        #expect(processes.current == 3 + 1 + 2 * looks)
        #expect(
            later.explanation.hasPrefix("undecided after 4 processes, decided by \(2 * looks) more processes"),
            "\(later.explanation)")
    }

    /// No change on a benchmark whose processes lie 2% apart: within noise at first (the interval
    /// reaches beyond ±5%), no change once more processes narrow it.
    @Test func anUnchangedBenchmarkIsDecidedUnchanged() throws {
        let baseline = Self.report(processes: 10, heapSpread: 0.02, seed: 3)
        let current = Self.report(processes: 3, heapSpread: 0.02, seed: 4)
        let first = gate.decide(baseline: baseline, current: current)
        let firstHeap = try entry(first)
        #expect(firstHeap.verdict == .withinNoise, "\(firstHeap.explanation)")
        var looks = 0
        let decided = gate.decideUndecided(first, baseline: baseline, current: current, interleaved: false) { ids in
            looks += 1
            let again = Self.report(processes: 2, ids: ids, heapSpread: 0.02, seed: 20 + UInt64(looks))
            return RegressionGate.Remeasured(baseline: baseline, current: again)
        }
        let later = try entry(decided)
        #expect(later.verdict == .noChange, "\(later.explanation)")
        #expect(!decided.comparison.hasRegression)
    }

    /// With the baseline's build measured beside the candidate, only the fresh processes of both
    /// builds are compared: the stored baseline's minute no longer matters.
    @Test func interleavedLooksCompareFreshProcessesOfBothBuilds() throws {
        let heap = Self.ids[0]
        // A stored baseline from a slower hour: every benchmark 30% slower than now.
        var slowHour: [String: Double] = [:]
        for id in Self.ids { slowHour[id] = 1.3 }
        let baseline = Self.report(processes: 10, ratios: slowHour, heapSpread: 0.1, seed: 5)
        let current = Self.report(processes: 3, ratios: [heap: 1.25], heapSpread: 0.1, seed: 6)
        let first = gate.decide(baseline: baseline, current: current)
        #expect(gate.moreProcesses.undecided(first.comparison, interleaved: true).contains(heap))
        var looks = 0
        let decided = gate.decideUndecided(first, baseline: baseline, current: current, interleaved: true) { ids in
            looks += 1
            return RegressionGate.Remeasured(
                baseline: Self.report(processes: 2, ids: ids, heapSpread: 0.1, seed: 30 + UInt64(looks)),
                current: Self.report(
                    processes: 2, ids: ids, ratios: [heap: 1.25], heapSpread: 0.1, seed: 40 + UInt64(looks)))
        }
        let later = try entry(decided)
        guard case .tested(let ratio, _, let processes?, _, _) = later.reason.finding else {
            Issue.record("not tested in processes: \(later.reason.finding)")
            return
        }
        #expect(processes == ComparisonReason.PerSide(baseline: 2 * looks, current: 2 * looks))
        #expect(abs(ratio - 1.25) < 0.08, "\(later.explanation)")
        #expect(later.verdict == .regressed, "\(later.explanation)")
        guard case .moreProcesses(_, 2 * looks, looks, true, true)? = later.reason.reviews.last else {
            Issue.record("no interleaved review: \(later.reason.reviews)")
            return
        }
    }

    /// Looks on a machine whose neighbours take the CPU from both builds alike (no busier side) are
    /// no verdict: the benchmark is inconclusive, never regressed or unchanged.
    @Test func looksOnABusyMachineAreInconclusive() throws {
        let heap = Self.ids[0]
        let baseline = Self.report(processes: 10, heapSpread: 0.1, seed: 1)
        let current = Self.report(processes: 3, ratios: [heap: 1.2], heapSpread: 0.1, seed: 2)
        let first = gate.decide(baseline: baseline, current: current)
        func busy(_ report: Report) -> Report {
            var report = report
            for benchmark in report.benchmarks.indices {
                for sample in report.benchmarks[benchmark].samples.indices {
                    report.benchmarks[benchmark].samples[sample].cpuNanoseconds! *= 0.6
                }
            }
            return report
        }
        var looks = 0
        let decided = gate.decideUndecided(first, baseline: baseline, current: current, interleaved: true) { ids in
            looks += 1
            return RegressionGate.Remeasured(
                baseline: busy(Self.report(processes: 2, ids: ids, heapSpread: 0.1, seed: 50)),
                current: busy(Self.report(processes: 2, ids: ids, ratios: [heap: 1.2], heapSpread: 0.1, seed: 60)))
        }
        let later = try entry(decided)
        #expect(looks == 1)
        #expect(later.verdict == .inconclusive, "\(later.explanation)")
        #expect(later.explanation.hasPrefix("undecided after 3 processes, and still after 2 fresh processes"))
        #expect(later.explanation.hasSuffix("inconclusive: the machine was busy, measure again when it is quieter"))
        #expect(RegressionGate.Status(decided.comparison) == .inconclusive)
    }

    /// A look measures enough benchmarks for each process's machine factor: three undecided of four
    /// take the fourth along (each then shares its processes with three others); one undecided, the
    /// three quickest others; four or more, none.
    @Test func aLookMeasuresEnoughBenchmarksForTheMachinesFactor() {
        let four = Array(Self.ids.prefix(4))
        let baseline = Self.report(processes: 10, ids: four, heapSpread: 0.1, seed: 1)
        let current = Self.report(processes: 3, ids: four, heapSpread: 0.1, seed: 2)
        let policy = gate.moreProcesses
        #expect(policy.benchmarks(Array(four[1...3]), baseline: baseline, current: current) == four[1...3] + [four[0]])
        #expect(policy.benchmarks([four[3]], baseline: baseline, current: current) == [four[3]] + four[0...2])
        #expect(policy.benchmarks(four, baseline: baseline, current: current) == four)
        // A baseline whose later processes measured three of the four and a fifth (a spread one's):
        // three of them open take the fifth along, so that those processes give the factor too.
        let five = Array(Self.ids.prefix(5))
        let extended = RegressionGate.appendingProcesses(
            of: Self.report(processes: 4, ids: [five[0], five[1], five[2], five[4]], heapSpread: 0.1, seed: 3),
            to: Self.report(processes: 10, ids: five, heapSpread: 0.1, seed: 1))
        let fiveNow = Self.report(processes: 3, ids: five, heapSpread: 0.1, seed: 2)
        #expect(
            policy.benchmarks(Array(five[0...3]), baseline: extended, current: fiveNow) == Array(five[0...3]) + [
                five[4]
            ])
        #expect(policy.benchmarks([five[3]], baseline: extended, current: fiveNow) == [five[3]] + five[0...2])
    }

    /// No time for a look (the closure measures nothing): the first verdicts stand, unreviewed.
    @Test func noTimeForALookKeepsTheFirstVerdicts() {
        let baseline = Self.report(processes: 10, heapSpread: 0.1, seed: 1)
        let current = Self.report(processes: 3, ratios: [Self.ids[0]: 1.2], heapSpread: 0.1, seed: 2)
        let first = gate.decide(baseline: baseline, current: current)
        let kept = gate.decideUndecided(first, baseline: baseline, current: current, interleaved: false) { _ in nil }
        #expect(kept == first)
        var off = gate
        off.moreProcesses.budgetSeconds = 0
        #expect(off.moreProcesses.undecided(first.comparison, interleaved: false).isEmpty)
    }

    /// Raw levels (too few benchmarks to tell the machine's factor) are never counted as draws
    /// against the stored baseline: a candidate's processes share its minute.
    @Test func rawLevelsAreNotMeasuredAgainstTheStoredBaseline() {
        let few = Array(Self.ids.prefix(3))
        let baseline = Self.report(processes: 10, ids: few, heapSpread: 0.1, seed: 1)
        let current = Self.report(processes: 3, ids: few, ratios: [few[0]: 1.2], heapSpread: 0.1, seed: 2)
        let first = gate.decide(baseline: baseline, current: current)
        #expect(gate.moreProcesses.undecided(first.comparison, interleaved: false).isEmpty)
        #expect(gate.moreProcesses.undecided(first.comparison, interleaved: true) == [few[0]])
    }

    /// A stored baseline of few processes (.ci/run's quick one has 3) cannot show how far its own level
    /// moves from process to process: no looks count against it (a false 28.8% after 4 looks,
    /// 2026-11-29), and the command is told why; a baseline's build beside the candidate still looks.
    @Test func aBaselineOfFewProcessesGetsNoLooks() throws {
        let heap = Self.ids[0]
        let (baseline, current, first) = try heapWithinNoiseAtFirst(baselineProcesses: 3)
        let policy = gate.moreProcesses
        #expect(policy.undecided(first.comparison, interleaved: false).isEmpty)
        let short = policy.undecidedForTooFewBaselineProcesses(first.comparison, interleaved: false)
        #expect(short.map(\.id).contains(heap) && short.allSatisfy { $0.baseline == 3 })
        #expect(policy.undecided(first.comparison, interleaved: true) == short.map(\.id))
        #expect(policy.undecidedForTooFewBaselineProcesses(first.comparison, interleaved: true).isEmpty)
        let kept = gate.decideUndecided(first, baseline: baseline, current: current, interleaved: false) { _ in
            Issue.record("a look against a 3-process baseline")
            return nil
        }
        #expect(kept == first)
    }

    /// A baseline's benchmark whose processes lie far apart is named for more processes, with the
    /// quickest others (the machine's factor); not one whose processes agree, nor in a baseline of fewer
    /// processes than the looks count against (#61 item 2).
    @Test func aBaselinesSpreadBenchmarkIsNamedForMoreProcesses() throws {
        let policy = gate.moreProcesses
        let spread = try #require(policy.spreadBenchmarks(in: Self.report(processes: 10, heapSpread: 0.1, seed: 1)))
        #expect(Array(spread.spread.keys) == [Self.ids[0]])
        #expect(spread.spread[Self.ids[0]]! > policy.baselineSpreadPercent)
        #expect(spread.benchmarks == [Self.ids[0]] + Self.ids[1...3])
        #expect(policy.spreadBenchmarks(in: Self.report(processes: 10, heapSpread: 0.01, seed: 1)) == nil)
        #expect(policy.spreadBenchmarks(in: Self.report(processes: 5, heapSpread: 0.1, seed: 1)) == nil)
    }

    /// Why: a +12% change on a benchmark whose processes lie ~10% apart stays within noise after every
    /// look against a baseline of 10 processes, and is decided once the baseline measured it (with three
    /// others) in 20 more.
    @Test func aBaselineWithMoreProcessesOfASpreadBenchmarkLetsTheLooksDecide() throws {
        let heap = Self.ids[0]
        let ten = Self.report(processes: 10, heapSpread: 0.1, seed: 1)
        let spread = try #require(gate.moreProcesses.spreadBenchmarks(in: ten))
        let thirty = RegressionGate.appendingProcesses(
            of: Self.report(processes: 20, ids: spread.benchmarks, heapSpread: 0.1, seed: 3), to: ten)
        let current = Self.report(processes: 3, ratios: [heap: 1.12], heapSpread: 0.1, seed: 2)
        func decided(against baseline: Report) throws -> ComparisonEntry {
            let first = gate.decide(baseline: baseline, current: current)
            var looks: UInt64 = 0
            let later = gate.decideUndecided(first, baseline: baseline, current: current, interleaved: false) { ids in
                looks += 1
                let again = Self.report(
                    processes: 2, ids: ids, ratios: [heap: 1.12], heapSpread: 0.1, seed: 20 + looks)
                return RegressionGate.Remeasured(baseline: baseline, current: again)
            }
            return try entry(later)
        }
        let againstTen = try decided(against: ten)
        #expect(againstTen.verdict == .withinNoise, "\(againstTen.explanation)")
        let againstThirty = try decided(against: thirty)
        #expect(againstThirty.verdict == .regressed, "\(againstThirty.explanation)")
    }

    /// The baseline's finding says what its few processes with one fixed hash seed showed: the seed,
    /// when they lie far closer together than those with a seed each; else its layout (#61 item 2).
    @Test func aBaselineSaysWhetherItsSpreadIsTheHashSeed() throws {
        let heap = Self.ids[0]
        func annotated(fixedSeedSpread: Double) throws -> ProcessSpread {
            // As `run --processes 10` records it: the far-spread heap and three others in 20 more processes.
            var baseline = RegressionGate.appendingProcesses(
                of: Self.report(processes: 20, ids: [heap] + Self.ids[1...3], heapSpread: 0.1, seed: 2),
                to: Self.report(processes: 10, heapSpread: 0.1, seed: 1))
            baseline.fixedHashSeedProcesses =
                Self.report(processes: 5, ids: [heap] + Self.ids[1...3], heapSpread: fixedSeedSpread, seed: 3)
                .benchmarks
            ProcessFactors.annotate(&baseline, defaultThresholdPercent: 5, deterministicHashing: false)
            return try #require(baseline.benchmarks.first { $0.id == heap }?.processSpread)
        }
        let seeded = try annotated(fixedSeedSpread: 0.005)
        #expect(seeded.processes == 30 && seeded.fixedHashSeedProcesses == 5)
        #expect(try #require(seeded.fixedHashSeedSpreadPercent) < 5)
        let cause = try #require(seeded.likelyCause)
        #expect(
            cause.contains("Swift's per-process hash seed (with one fixed hash seed its 5 processes lie"), "\(cause)")
        let layout = try #require(try annotated(fixedSeedSpread: 0.1).likelyCause)
        #expect(layout.contains("not its hash seed"), "\(layout)")
    }
}
