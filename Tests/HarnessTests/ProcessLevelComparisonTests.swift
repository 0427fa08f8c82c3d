import Foundation
import PerfReport
import Testing

@testable import Harness

/// Comparisons of benchmarks measured in several processes: the process, not the sample, is what
/// a baseline and a candidate differ by.
@Suite struct ProcessLevelComparisonTests {
    let comparator = Comparator()

    /// Tight samples (0.5% spread) around a level of each process, tagged with it.
    static func result(_ id: String, levels: [Double], samplesPerProcess: Int = 25, seed: UInt64) -> BenchmarkResult {
        var values: [Double] = []
        var processes: [Int] = []
        for (process, level) in levels.enumerated() {
            values += Synthetic.normal(
                count: samplesPerProcess, mean: level, relativeSpread: 0.005, seed: seed &+ UInt64(process))
            processes += Array(repeating: process, count: samplesPerProcess)
        }
        var result = Synthetic.result(id, nanosecondsPerOperation: values)
        for index in result.samples.indices { result.samples[index].process = processes[index] }
        return result
    }

    /// The false alarm of issue #36: a hash table's speed differs by process (here up to 16%), each
    /// process's samples are tight, and a candidate process that lands high is no regression.
    @Test func aDifferenceInsideTheProcessSpreadIsNoRegression() throws {
        let baseline = Synthetic.report([Self.result("s/g/hashed", levels: [100, 116, 104, 110, 98], seed: 1)])
        let candidate = Synthetic.report([Self.result("s/g/hashed", levels: [114], seed: 9)])
        let entry = try #require(comparator.compare(baseline: baseline, current: candidate).entries.first)
        #expect(entry.verdict == .noChange || entry.verdict == .withinNoise)
        #expect(entry.explanation.contains("between processes (5 vs 1)"))

        // The same samples without their processes: the sample-level test sees two tight clouds
        // 8% apart and calls it a regression — what a single-process baseline cannot avoid.
        var pooledBaseline = baseline
        for index in pooledBaseline.benchmarks[0].samples.indices {
            pooledBaseline.benchmarks[0].samples[index].process = nil
        }
        var pooledCandidate = candidate
        for index in pooledCandidate.benchmarks[0].samples.indices {
            pooledCandidate.benchmarks[0].samples[index].process = nil
        }
        let pooled = try #require(comparator.compare(baseline: pooledBaseline, current: pooledCandidate).entries.first)
        #expect(pooled.verdict == .regressed)
    }

    /// Counted as independent draws (the gate's later looks), a candidate's processes narrow the
    /// interval as their number grows, the spread pooled from both sides; as one draw they do not.
    @Test func independentDrawsNarrowTheIntervalWithMoreProcesses() throws {
        let baseline = [100.0, 112, 95, 108, 90, 104, 99, 115, 93, 101]
        let three = [106.0, 118, 100]
        let twelve = three + [110, 96, 121, 104, 99, 113, 108, 102, 117]
        func width(_ current: [Double], _ model: ProcessLevelComparison.Model) throws -> Double {
            let levels = try #require(
                ProcessLevelComparison(baseline: baseline, current: current, confidenceLevel: 0.95, model: model))
            return levels.ratioInterval.upper / levels.ratioInterval.lower
        }
        #expect(try width(twelve, .independentDraws) < width(three, .independentDraws))
        #expect(try width(twelve, .independentDraws) < width(twelve, .currentAsOneDraw))
        // As one draw the candidate's count does not matter, only its mean.
        #expect(try abs(width(twelve, .currentAsOneDraw) - width(three, .currentAsOneDraw)) < 1e-12)
        // Two processes in all on two sides leave no degree of freedom for a pooled spread.
        #expect(
            ProcessLevelComparison(baseline: [100], current: [101], confidenceLevel: 0.95, model: .independentDraws)
                == nil)
    }

    /// Paired (the gate's interleaved looks: the i-th process of each build run back to back), a
    /// minute both builds shared drops out of their ratio; as independent draws it widens the interval.
    @Test func pairedDrawsCancelAMinuteBothBuildsShared() throws {
        let minutes = [1.0, 1.3, 1.05, 1.25, 0.95, 1.3, 1.0, 1.2]
        let own = [1.0, 1.01, 0.99, 1.005, 0.995, 1.0, 1.01, 0.99]
        let baseline = zip(minutes, own).map { 100 * $0 * $1 }
        let current = zip(minutes, own.reversed()).map { 108 * $0 * $1 }
        let paired = try #require(
            ProcessLevelComparison(baseline: baseline, current: current, confidenceLevel: 0.95, model: .pairedDraws))
        #expect(paired.ratioInterval.lower > 1.05 && paired.ratioInterval.upper < 1.11, "\(paired.ratioInterval)")
        let independent = try #require(
            ProcessLevelComparison(
                baseline: baseline, current: current, confidenceLevel: 0.95, model: .independentDraws))
        #expect(independent.ratioInterval.lower < 1, "\(independent.ratioInterval)")
        // Sides of unequal counts cannot be paired: compared as independent draws.
        let uneven = try #require(
            ProcessLevelComparison(
                baseline: baseline, current: Array(current.dropLast()), confidenceLevel: 0.95, model: .pairedDraws))
        #expect(uneven.ratioInterval.lower < 1)
    }

    @Test func aRegressionBeyondTheProcessSpreadIsCaught() throws {
        let baseline = Synthetic.report([Self.result("s/g/x", levels: [100, 101, 99.5, 100.5, 100], seed: 3)])
        let candidate = Synthetic.report([Self.result("s/g/x", levels: [110, 110.5, 109.5], seed: 7)])
        let entry = try #require(comparator.compare(baseline: baseline, current: candidate).entries.first)
        #expect(entry.verdict == .regressed)
        let ratio = try #require(entry.ratio)
        #expect(abs(ratio - 1.10) < 0.01)
        let interval = try #require(entry.ratioConfidenceInterval)
        #expect(interval.lower > 1.05 && interval.upper < 1.15)
        // The levels are the processes' geometric means.
        #expect(abs((entry.baselineMedian ?? 0) - 100.2) < 0.5)
    }

    @Test func needsTwoProcessesOnOneSide() {
        #expect(ProcessLevelComparison(baseline: [100], current: [110], confidenceLevel: 0.95) == nil)
        #expect(ProcessLevelComparison(baseline: [100, 0], current: [110], confidenceLevel: 0.95) == nil)
        let levels = ProcessLevelComparison(baseline: [100], current: [110, 112], confidenceLevel: 0.95)
        #expect(levels?.baselineProcesses == 1)
        #expect(levels?.currentProcesses == 2)
        // Two processes that agree give no spread to stand on; three that agree are taken as exact.
        #expect(ProcessLevelComparison(baseline: [100, 100], current: [130], confidenceLevel: 0.95) == nil)
        let exact = ProcessLevelComparison(baseline: [100, 100, 100], current: [100], confidenceLevel: 0.95)
        #expect(exact?.pValue == 1)
        #expect(exact?.ratioInterval.lower == 1)
    }
}
