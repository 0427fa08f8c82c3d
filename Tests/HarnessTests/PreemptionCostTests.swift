import PerfReport
import Testing

@testable import Harness

/// A benchmark that refills its caches after every preemption pays for the neighbours on its own CPU
/// time; the cost a switch adds is fitted on its samples and taken out before CPU times are compared.
@Suite struct PreemptionCostTests {
    let comparator = Comparator()

    /// 40 samples of 200 operations at `cpu` ns/op of work, each preempted 0–8 times at `cost` ns a
    /// switch (0 switches when `busy` is false), on a CPU for 60% (busy) or all of their wall time.
    static func result(cpu: Double, cost: Double, busy: Bool, seed: UInt64) -> BenchmarkResult {
        let work = Synthetic.normal(count: 40, mean: cpu, relativeSpread: 0.01, seed: seed)
        var result = Synthetic.result("s/g/sort", nanosecondsPerOperation: work)
        for index in result.samples.indices {
            let switches = busy ? (index * 7 + Int(seed)) % 9 : 0
            let iterations = 200.0
            let spent = work[index] * iterations + cost * Double(switches)
            result.samples[index].iterations = Int(iterations)
            result.samples[index].cpuNanoseconds = spent
            result.samples[index].wallNanoseconds = busy ? spent / 0.6 : spent
            result.samples[index].involuntaryContextSwitches = switches
        }
        return result
    }

    @Test func theCostOfASwitchIsFittedAndTakenOut() throws {
        let busy = Self.result(cpu: 50_000, cost: 600_000, busy: true, seed: 1)
        let cost = try #require(PreemptionCost(busy))
        #expect(abs(cost.nanosecondsPerSwitch - 600_000) < 60_000)
        let corrected = try #require(cost.corrected(busy))
        #expect(abs(SampleStatistics.median(corrected) / 50_000 - 1) < 0.02)
    }

    @Test func aQuietRunHasNoCost() {
        #expect(PreemptionCost(Self.result(cpu: 50_000, cost: 600_000, busy: false, seed: 2)) == nil)
        // Switches that cost nothing: no slope beyond its noise.
        #expect(PreemptionCost(Self.result(cpu: 50_000, cost: 0, busy: true, seed: 3)) == nil)
    }

    /// The innocent flag of #51's trials: unchanged code whose CPU time a busy machine inflated by
    /// ~10% through preemptions alone is not a regression; the same machine with +10% of work is.
    @Test func preemptionsAloneAreNotARegression() throws {
        let baseline = Synthetic.report([Self.result(cpu: 50_000, cost: 0, busy: false, seed: 4)])
        let unchanged = Synthetic.report([Self.result(cpu: 50_000, cost: 250_000, busy: true, seed: 5)])
        let entry = try #require(comparator.compare(baseline: baseline, current: unchanged).entries.first)
        #expect(entry.metric == .cpuTime)
        #expect(entry.verdict != .regressed)
        #expect(entry.explanation.contains(" µs each preemption cost this run"))
        #expect(entry.explanation.contains("each preemption cost this run (fitted on its samples)"))

        let slower = Synthetic.report([Self.result(cpu: 56_000, cost: 250_000, busy: true, seed: 6)])
        let caught = try #require(comparator.compare(baseline: baseline, current: slower).entries.first)
        #expect(caught.verdict == .regressed)
        #expect(abs((caught.ratio ?? 0) - 1.12) < 0.02)
    }
}
