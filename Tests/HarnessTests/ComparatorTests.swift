import Foundation
import PerfReport
import Testing

@testable import Harness

@Suite struct ComparatorTests {
    let comparator = Comparator()

    static func entry(_ comparison: Comparison, _ id: String) throws -> ComparisonEntry {
        try #require(comparison.entries.first { $0.id == id })
    }

    /// What the test and the ratio's interval found, when they decided the entry.
    static func outcome(_ entry: ComparisonEntry) -> ComparisonReason.TestedOutcome? {
        guard case .tested(_, _, _, _, let outcome) = entry.reason.finding else { return nil }
        return outcome
    }

    // MARK: - Holm

    @Test func holmAdjustmentByHand() {
        // m = 4. Sorted: 0.005 · 4 = 0.02, 0.01 · 3 = 0.03, 0.03 · 2 = 0.06, 0.04 · 1 = 0.04 → kept
        // monotone: 0.06. In input order: [0.03, 0.06, 0.06, 0.02].
        let adjusted = Comparator.holmAdjusted([0.01, 0.04, 0.03, 0.005])
        let expected = [0.03, 0.06, 0.06, 0.02]
        for (actual, wanted) in zip(adjusted, expected) { #expect(abs(actual - wanted) < 1e-15) }
        // Capped at 1.
        #expect(Comparator.holmAdjusted([0.6, 0.9]) == [1, 1])
        #expect(Comparator.holmAdjusted([0.2]) == [0.2])
        #expect(Comparator.holmAdjusted([]) == [])
    }

    // MARK: - Verdicts on synthetic samples

    @Test func identicalDistributionsShowNoChange() {
        let baseline = Synthetic.normal(count: 25, mean: 100, relativeSpread: 0.01, seed: 1)
        let current = Synthetic.normal(count: 25, mean: 100, relativeSpread: 0.01, seed: 2)
        let entry = comparator.compareSamples(id: "s/g/same", baseline: baseline, current: current)
        #expect(entry.verdict == .noChange || entry.verdict == .withinNoise)
        #expect(entry.metric == .wallTime)
        #expect(entry.pValue! > 0.05)
        #expect(abs(entry.ratio! - 1) < 0.02)
        // The very same samples on both sides: ratio exactly 1, p-value 1, nothing to see.
        let same = comparator.compareSamples(id: "s/g/same", baseline: baseline, current: baseline)
        #expect(same.verdict == .noChange)
        #expect(same.ratio == 1)
        #expect(same.pValue == 1)
    }

    @Test func twentyPercentSlowerIsARegression() throws {
        let baseline = Synthetic.normal(count: 25, mean: 100, relativeSpread: 0.01, seed: 3)
        let current = Synthetic.normal(count: 25, mean: 120, relativeSpread: 0.01, seed: 4)
        let entry = comparator.compareSamples(id: "s/g/slow", baseline: baseline, current: current)
        #expect(entry.verdict == .regressed)
        let ratio = try #require(entry.ratio)
        let interval = try #require(entry.ratioConfidenceInterval)
        #expect(abs(ratio - 1.2) < 0.02)
        #expect(interval.lower <= ratio && ratio <= interval.upper)
        #expect(interval.lower > 1.15 && interval.upper < 1.25)
        #expect(entry.pValue! < 1e-6)
        #expect(entry.adjustedPValue == entry.pValue)
        #expect(entry.explanation.contains("slower"))
        #expect(entry.explanation.contains("regressed beyond the 5.0% threshold"))
        #expect(entry.explanation.contains("p < 0.001"))
        #expect(entry.baselineMedian == SampleStatistics.median(baseline))
        #expect(entry.currentMedian == SampleStatistics.median(current))
    }

    @Test func twentyPercentFasterIsAnImprovement() {
        let baseline = Synthetic.normal(count: 25, mean: 100, relativeSpread: 0.01, seed: 5)
        let current = Synthetic.normal(count: 25, mean: 80, relativeSpread: 0.01, seed: 6)
        let entry = comparator.compareSamples(id: "s/g/fast", baseline: baseline, current: current)
        #expect(entry.verdict == .improved)
        #expect(abs(entry.ratio! - 0.8) < 0.02)
        // 100 → 80 ns is 25% faster in throughput terms (1 / 0.8 − 1), the measure the threshold uses.
        #expect(entry.explanation.contains("faster"))
        #expect(entry.explanation.contains("improved beyond the 5.0% threshold"))
    }

    @Test func smallSignificantChangeIsBelowThreshold() {
        let baseline = Synthetic.normal(count: 30, mean: 100, relativeSpread: 0.005, seed: 7)
        let current = Synthetic.normal(count: 30, mean: 102, relativeSpread: 0.005, seed: 8)
        let entry = comparator.compareSamples(id: "s/g/small", baseline: baseline, current: current)
        #expect(entry.pValue! < 0.001)
        #expect(entry.verdict == .noChange)
        #expect(Self.outcome(entry) == .belowThreshold)
        #expect(entry.explanation.contains("changed by 2."))
    }

    /// A +5% sort measured +3.5% [+2.7, +6.4], significant: below the threshold, but not ruled out
    /// beyond it, so within noise (for more processes to decide), not "no change" (trials, 2026-12-07).
    @Test func aChangeBelowTheThresholdWhoseIntervalReachesBeyondItIsWithinNoise() {
        let figures = Harness.Comparator.Figures(
            id: "s/g/sort", metric: .wallTime, thresholdPercent: 5, baselineMedian: 100, currentMedian: 103.5,
            ratio: 1.035, ratioInterval: ConfidenceInterval(lower: 1.027, upper: 1.064, level: 0.95))
        let entry = comparator.decide(figures, pValue: 0.001, adjustedPValue: 0.004, testCount: 4)
        #expect(entry.verdict == .withinNoise)
        #expect(Self.outcome(entry) == .belowThresholdIntervalReachesBeyond)
        #expect(entry.explanation.contains("below the 5.0% threshold, but the interval reaches beyond it"))
        var within = figures
        within.ratioInterval = ConfidenceInterval(lower: 1.027, upper: 1.043, level: 0.95)
        let settled = comparator.decide(within, pValue: 0.001, adjustedPValue: 0.004, testCount: 4)
        #expect(settled.verdict == .noChange)
        #expect(Self.outcome(settled) == .belowThreshold)
    }

    @Test func noisySixPercentIsWithinNoise() {
        let baseline = Synthetic.normal(count: 20, mean: 100, relativeSpread: 0.15, seed: 9)
        let current = Synthetic.normal(count: 20, mean: 106, relativeSpread: 0.15, seed: 10)
        let entry = comparator.compareSamples(id: "s/g/noisy", baseline: baseline, current: current)
        #expect(entry.pValue! >= 0.05)
        #expect(entry.verdict == .withinNoise)
        let interval = entry.ratioConfidenceInterval!
        #expect(interval.upper > 1.05)
        #expect(entry.explanation.contains("cannot be ruled out"))
        #expect(Self.outcome(entry) == .intervalReachesBeyondThreshold)
        #expect(entry.explanation.contains(UnitFormatting.pValue(entry.adjustedPValue!)))
    }

    /// Gate-check run 10 of 2026-11-22: a memset benchmark +15% by the medians, p = 0.005 after
    /// Holm, but its ratio interval −2.6% … +31.5% includes no change: not a regression.
    @Test func aRegressionNeedsTheRatioIntervalToExcludeNoChange() {
        func change(ratio: Double, lower: Double, upper: Double) -> Harness.Comparator.Figures {
            Harness.Comparator.Figures(
                id: "s/g/memset", metric: .cpuTime, thresholdPercent: 5, baselineMedian: 640,
                currentMedian: 640 * ratio, ratio: ratio,
                ratioInterval: ConfidenceInterval(lower: lower, upper: upper, level: 0.95))
        }
        let straddling = comparator.decide(
            change(ratio: 1.152, lower: 0.974, upper: 1.315), pValue: 0.005, adjustedPValue: 0.0054, testCount: 53)
        #expect(straddling.verdict == .withinNoise)
        #expect(Self.outcome(straddling) == .intervalIncludesNoChange)
        let clear = comparator.decide(
            change(ratio: 1.152, lower: 1.08, upper: 1.22), pValue: 0.005, adjustedPValue: 0.0054, testCount: 53)
        #expect(clear.verdict == .regressed)
        let faster = comparator.decide(
            change(ratio: 0.85, lower: 0.7, upper: 1.01), pValue: 0.001, adjustedPValue: 0.001, testCount: 1)
        #expect(faster.verdict == .withinNoise)
        let clearlyFaster = comparator.decide(
            change(ratio: 0.85, lower: 0.8, upper: 0.9), pValue: 0.001, adjustedPValue: 0.001, testCount: 1)
        #expect(clearlyFaster.verdict == .improved)
    }

    @Test func bootstrapOfTheRatioIsDeterministic() {
        let baseline = Synthetic.normal(count: 25, mean: 100, relativeSpread: 0.03, seed: 11)
        let current = Synthetic.normal(count: 25, mean: 104, relativeSpread: 0.03, seed: 12)
        let first = comparator.compareSamples(id: "s/g/x", baseline: baseline, current: current)
        let second = comparator.compareSamples(id: "s/g/x", baseline: baseline.reversed(), current: current.reversed())
        #expect(first == second)
    }

    // MARK: - Reports

    @Test func reportComparisonCarriesMetadataAndSortedEntries() throws {
        let baselineDate = Date(timeIntervalSince1970: 1_600_000_000)
        let steady = Synthetic.normal(count: 20, mean: 50, relativeSpread: 0.01, seed: 13)
        let baseline = Synthetic.report(
            [
                Synthetic.result("s/g/kept", nanosecondsPerOperation: steady),
                Synthetic.result("s/g/gone", nanosecondsPerOperation: steady),
            ], createdAt: baselineDate)
        let current = Synthetic.report([
            Synthetic.result("s/g/new", nanosecondsPerOperation: steady),
            Synthetic.result("s/g/kept", nanosecondsPerOperation: steady),
        ])
        let comparison = Comparator(thresholdPercent: 7, alpha: 0.01).compare(baseline: baseline, current: current)
        #expect(comparison.baselineCreatedAt == baselineDate)
        #expect(comparison.baselineEnvironment == Synthetic.environment)
        #expect(comparison.thresholdPercent == 7)
        #expect(comparison.alpha == 0.01)
        #expect(comparison.multipleComparisonControl == "holm")
        #expect(comparison.entries.map(\.id) == ["s/g/gone", "s/g/kept", "s/g/new"])
        let gone = try Self.entry(comparison, "s/g/gone")
        #expect(gone.verdict == .removed)
        #expect(gone.baselineMedian != nil && gone.currentMedian == nil)
        let new = try Self.entry(comparison, "s/g/new")
        #expect(new.verdict == .added)
        #expect(new.currentMedian != nil && new.baselineMedian == nil)
        let kept = try Self.entry(comparison, "s/g/kept")
        #expect(kept.verdict == .noChange)
        #expect(kept.thresholdPercent == 7)
        #expect(!comparison.hasRegression)
    }

    @Test func benchmarkThresholdOverridesTheDefault() throws {
        let baselineValues = Synthetic.normal(count: 25, mean: 100, relativeSpread: 0.01, seed: 14)
        let currentValues = Synthetic.normal(count: 25, mean: 108, relativeSpread: 0.01, seed: 15)
        func compare(baselineThreshold: Double?, currentThreshold: Double?) throws -> ComparisonEntry {
            let baseline = Synthetic.report([
                Synthetic.result("s/g/x", nanosecondsPerOperation: baselineValues, thresholdPercent: baselineThreshold)
            ])
            let current = Synthetic.report([
                Synthetic.result("s/g/x", nanosecondsPerOperation: currentValues, thresholdPercent: currentThreshold)
            ])
            return try Self.entry(comparator.compare(baseline: baseline, current: current), "s/g/x")
        }
        // Default 5%: an 8% slowdown regresses.
        let plain = try compare(baselineThreshold: nil, currentThreshold: nil)
        #expect(plain.verdict == .regressed)
        #expect(plain.thresholdPercent == 5)
        // The benchmark declares 10%: the same slowdown is significant but below its threshold.
        let wide = try compare(baselineThreshold: nil, currentThreshold: 10)
        #expect(wide.verdict == .noChange)
        #expect(wide.thresholdPercent == 10)
        #expect(wide.explanation.contains("below the 10.0% threshold"))
        // Only the baseline declares one: used.
        #expect(try compare(baselineThreshold: 10, currentThreshold: nil).verdict == .noChange)
        // Both declare one: the current run's wins.
        let both = try compare(baselineThreshold: 10, currentThreshold: 3)
        #expect(both.thresholdPercent == 3)
        #expect(both.verdict == .regressed)
    }

    @Test func holmKeepsHundredsOfUnchangedBenchmarksQuiet() {
        var baselineResults: [BenchmarkResult] = []
        var currentResults: [BenchmarkResult] = []
        for index in 0..<300 {
            let id = "s/g/case\(index)"
            let seed = UInt64(index) * 2 + 1000
            baselineResults.append(
                Synthetic.result(
                    id,
                    nanosecondsPerOperation: Synthetic.normal(count: 20, mean: 100, relativeSpread: 0.02, seed: seed)
                ))
            currentResults.append(
                Synthetic.result(
                    id,
                    nanosecondsPerOperation: Synthetic.normal(
                        count: 20, mean: 100, relativeSpread: 0.02, seed: seed + 1)
                ))
        }
        // The p-values and Holm's adjustment do not depend on the bootstrap (it only gives the
        // ratio's interval): 200 resamples rather than 2,000 make this test 10× cheaper.
        let comparison = Comparator(resamples: 200).compare(
            baseline: Synthetic.report(baselineResults), current: Synthetic.report(currentResults))
        #expect(comparison.entries.count == 300)
        #expect(comparison.count(.regressed) == 0)
        #expect(comparison.count(.improved) == 0)
        #expect(!comparison.hasRegression)
        // Without the adjustment some would have looked significant: that is what Holm is for.
        let rawSignificant = comparison.entries.filter { $0.pValue! < 0.05 }.count
        #expect(rawSignificant > 0)
        #expect(comparison.entries.allSatisfy { $0.adjustedPValue! >= $0.pValue! })
        #expect(comparison.entries.allSatisfy { $0.adjustedPValue! >= 0.05 })
        #expect(comparison.entries.first!.explanation.contains("after Holm over 300 benchmarks"))
    }

    @Test func holmCanTurnALoneRegressionIntoNoise() throws {
        // Five samples each, fully separated and 20% apart: exact p = 2 / C(10, 5) = 0.0079.
        let slowBaseline: [Double] = [100, 101, 102, 103, 104]
        let slowCurrent: [Double] = [120, 121, 122, 123, 124]
        let alone = comparator.compareSamples(id: "s/g/slow", baseline: slowBaseline, current: slowCurrent)
        #expect(abs(alone.pValue! - 2.0 / 252) < 1e-12)
        #expect(alone.verdict == .regressed)
        // Among ten other benchmarks, Holm multiplies that p-value by 11 (0.087 > 0.05).
        var baselineResults = [Synthetic.result("s/g/slow", nanosecondsPerOperation: slowBaseline)]
        var currentResults = [Synthetic.result("s/g/slow", nanosecondsPerOperation: slowCurrent)]
        for index in 0..<10 {
            let values = Synthetic.normal(count: 5, mean: 100, relativeSpread: 0.01, seed: UInt64(200 + index))
            baselineResults.append(Synthetic.result("s/g/other\(index)", nanosecondsPerOperation: values))
            currentResults.append(Synthetic.result("s/g/other\(index)", nanosecondsPerOperation: values))
        }
        let comparison = comparator.compare(
            baseline: Synthetic.report(baselineResults), current: Synthetic.report(currentResults))
        let slow = try Self.entry(comparison, "s/g/slow")
        #expect(abs(slow.adjustedPValue! - 11 * 2.0 / 252) < 1e-12)
        #expect(slow.verdict == .withinNoise)
    }

    /// Benchmarks measured only beside the tested one (a later look's companions) are no tests of it:
    /// Holm adjusts over the benchmarks asked for, the others over all, as before.
    @Test func holmCountsOnlyTheBenchmarksTested() throws {
        var baselineResults = [Synthetic.result("s/g/slow", nanosecondsPerOperation: [100, 101, 102, 103, 104])]
        var currentResults = [Synthetic.result("s/g/slow", nanosecondsPerOperation: [120, 121, 122, 123, 124])]
        for index in 0..<3 {
            let values = Synthetic.normal(count: 5, mean: 100, relativeSpread: 0.01, seed: UInt64(300 + index))
            baselineResults.append(Synthetic.result("s/g/other\(index)", nanosecondsPerOperation: values))
            currentResults.append(Synthetic.result("s/g/other\(index)", nanosecondsPerOperation: values))
        }
        let comparison = comparator.compare(
            baseline: Synthetic.report(baselineResults), current: Synthetic.report(currentResults), metric: .wallTime,
            tested: ["s/g/slow"])
        let slow = try Self.entry(comparison, "s/g/slow")
        #expect(slow.adjustedPValue == slow.pValue)
        #expect(slow.verdict == .regressed, "\(slow.explanation)")
        let other = try Self.entry(comparison, "s/g/other0")
        #expect(other.explanation.contains("after Holm over 4 benchmarks"), "\(other.explanation)")
    }

    // MARK: - Exact counts

    /// Probe/symbolicate/cold declares 10%: its counts move a few percent between processes.
    @Test func aBenchmarksOwnThresholdAppliesToExactCountsToo() throws {
        let strict = Comparator(thresholdPercent: 2)
        let samples = Synthetic.normal(count: 20, mean: 100, relativeSpread: 0.01, seed: 30)
        func verdict(declared: Double?, instructions new: Double) throws -> ComparisonEntry.Verdict {
            var old = Synthetic.result("s/g/x", nanosecondsPerOperation: samples, instructionsPerOperation: 1000)
            var current = Synthetic.result("s/g/x", nanosecondsPerOperation: samples, instructionsPerOperation: new)
            old.thresholdPercent = declared
            current.thresholdPercent = declared
            let comparison = strict.compare(
                baseline: Synthetic.report([old]), current: Synthetic.report([current]), metric: .instructions)
            return try Self.entry(comparison, "s/g/x").verdict
        }
        #expect(try verdict(declared: nil, instructions: 1030) == .regressed)
        #expect(try verdict(declared: 10, instructions: 1030) == .noChange)
        #expect(try verdict(declared: 10, instructions: 1120) == .regressed)
    }

    @Test func instructionCountsNeedNoSignificanceTest() throws {
        let noisy = Synthetic.normal(count: 20, mean: 100, relativeSpread: 0.1, seed: 16)
        func entry(_ old: Double?, _ new: Double?) throws -> ComparisonEntry {
            let baseline = Synthetic.report([
                Synthetic.result("s/g/x", nanosecondsPerOperation: noisy, instructionsPerOperation: old)
            ])
            let current = Synthetic.report([
                Synthetic.result("s/g/x", nanosecondsPerOperation: noisy, instructionsPerOperation: new)
            ])
            return try Self.entry(
                comparator.compare(baseline: baseline, current: current, metric: .instructions), "s/g/x")
        }
        let more = try entry(1000, 1100)
        #expect(more.verdict == .regressed)
        #expect(more.metric == .instructions)
        #expect(more.pValue == nil && more.adjustedPValue == nil && more.ratioConfidenceInterval == nil)
        #expect(abs(more.ratio! - 1.1) < 1e-12)
        #expect(more.explanation.contains("1000 → 1100"))
        #expect(more.explanation.contains("deterministic"))
        #expect(try entry(1000, 900).verdict == .improved)
        #expect(try entry(1000, 1020).verdict == .noChange)
        #expect(try entry(1000, 1000).verdict == .noChange)
        // Not counted on one side: compared by wall time instead, and the entry says so.
        let fallback = try entry(1000, nil)
        #expect(fallback.metric == .wallTime)
        #expect(fallback.pValue != nil)
        #expect(fallback.reason.substitution == .notMeasured(.instructions))
        #expect(fallback.explanation.hasPrefix("instructions per operation not measured on both sides"))
    }

    @Test func allocationCountsFromZero() throws {
        let values = Synthetic.normal(count: 10, mean: 100, relativeSpread: 0.01, seed: 17)
        func entry(_ old: Double, _ new: Double) throws -> ComparisonEntry {
            let baseline = Synthetic.report([
                Synthetic.result("s/g/x", nanosecondsPerOperation: values, allocationsPerOperation: old)
            ])
            let current = Synthetic.report([
                Synthetic.result("s/g/x", nanosecondsPerOperation: values, allocationsPerOperation: new)
            ])
            return try Self.entry(
                comparator.compare(baseline: baseline, current: current, metric: .allocations), "s/g/x")
        }
        let fromZero = try entry(0, 2)
        #expect(fromZero.verdict == .regressed)
        #expect(fromZero.metric == .allocations)
        #expect(fromZero.ratio == nil)
        #expect(try entry(0, 0).verdict == .noChange)
        // One allocation by the runtime over thousands of iterations is not the benchmark's.
        #expect(try entry(0, 0.001).verdict == .noChange)
        #expect(try entry(0.001, 0.003).verdict == .noChange)
        #expect(try entry(2, 1).verdict == .improved)
    }

    @Test func cpuTimeIsComparedFromSamples() throws {
        func result(_ cpu: [Double]) -> BenchmarkResult {
            var result = Synthetic.result("s/g/x", nanosecondsPerOperation: cpu)
            result.samples = cpu.map { Sample(iterations: 10, wallNanoseconds: 1000, cpuNanoseconds: $0 * 10) }
            return result
        }
        let baseline = Synthetic.report([result(Synthetic.normal(count: 20, mean: 100, relativeSpread: 0.01, seed: 18))]
        )
        let current = Synthetic.report([result(Synthetic.normal(count: 20, mean: 130, relativeSpread: 0.01, seed: 19))])
        let entry = try Self.entry(comparator.compare(baseline: baseline, current: current, metric: .cpuTime), "s/g/x")
        #expect(entry.metric == .cpuTime)
        #expect(entry.verdict == .regressed)
        // Wall time is identical in every sample, so comparing wall time finds nothing.
        let wall = try Self.entry(comparator.compare(baseline: baseline, current: current), "s/g/x")
        #expect(wall.verdict == .noChange)
    }

    @Test func benchmarkWithoutSamplesCannotBeJudged() throws {
        let baseline = Synthetic.report([Synthetic.result("s/g/x", nanosecondsPerOperation: [])])
        let current = Synthetic.report([Synthetic.result("s/g/x", nanosecondsPerOperation: [10, 11, 12, 10, 11])])
        let entry = try Self.entry(comparator.compare(baseline: baseline, current: current), "s/g/x")
        #expect(entry.verdict == .withinNoise)
        #expect(entry.pValue == nil)
        #expect(entry.reason.finding == .noSamples(in: .baseline))
    }

    @Test func nonPositiveBaselineMedianHasNoRatio() {
        let entry = comparator.compareSamples(
            id: "s/g/empty", baseline: [-0.1, 0, 0, 0.1, -0.2], current: [1, 1.1, 0.9, 1, 1])
        #expect(entry.ratio == nil)
        #expect(entry.verdict == .withinNoise)
        guard case .ratioUndefined(let median, let p) = entry.reason.finding else {
            Issue.record("no ratio-undefined finding: \(entry.explanation)")
            return
        }
        #expect(median == 0)
        #expect(p.tests == 1)
    }
}

@Suite struct ComparatorFloorTests {
    @Test func timesBelowTheMeasurableFloorAreNoChange() {
        let entry = Comparator().compareSamples(
            id: "Harness/baseline/empty-body", baseline: [1e-12, 3e-12, 2e-12, 5e-12, 1e-12],
            current: [1e-15, 2e-15, 1e-15, 3e-15, 2e-15])
        #expect(entry.verdict == .noChange)
        #expect(entry.ratio == nil)
        #expect(entry.reason.finding == .belowMeasurableFloor(nanoseconds: Comparator.measurableFloorNanoseconds))
    }
}
