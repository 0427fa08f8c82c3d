import Foundation
import PerfReport
import Testing

@testable import Harness

/// A busy machine is not a regression: a side that waited for a CPU is judged on CPU time, and
/// what CPU time does not decide is inconclusive, never "no change".
@Suite struct MachineContentionTests {
    let comparator = Comparator()

    /// Samples of `wall` ns/op of which the process was on a CPU for `cpu` ns/op.
    static func result(wall: Double, cpu: Double, switches: Int = 0, seed: UInt64) -> BenchmarkResult {
        let walls = Synthetic.normal(count: 25, mean: wall, relativeSpread: 0.01, seed: seed)
        var result = Synthetic.result("s/g/x", nanosecondsPerOperation: walls)
        for index in result.samples.indices {
            result.samples[index].cpuNanoseconds = result.samples[index].wallNanoseconds * cpu / wall
            result.samples[index].involuntaryContextSwitches = switches
        }
        return result
    }

    @Test func unchangedCodeOnABusyMachineIsInconclusiveNotRegressed() throws {
        let baseline = Synthetic.report([Self.result(wall: 100, cpu: 100, seed: 1)])
        // Two neighbours on two cores: half the wall time waiting, CPU time as before.
        let busy = Synthetic.report([Self.result(wall: 190, cpu: 100, switches: 3, seed: 2)])
        let comparison = comparator.compare(baseline: baseline, current: busy)
        let entry = try #require(comparison.entries.first)
        #expect(entry.verdict == .inconclusive)
        #expect(entry.metric == .cpuTime)
        #expect(entry.explanation.hasPrefix("the machine was busy (this run was on a CPU for 53% of its wall time"))
        #expect(entry.explanation.contains("inconclusive"))
        #expect(comparison.isInconclusive)
        #expect(!comparison.hasRegression)
    }

    /// Neighbours raise CPU time too, by a different amount for each benchmark (#51's trials:
    /// `Collections/sort/ints` +5-11%): slower on the busier side is not a verdict.
    @Test func slowerCPUTimeOnTheBusierSideIsInconclusive() throws {
        let baseline = Synthetic.report([Self.result(wall: 100, cpu: 100, seed: 3)])
        let busy = Synthetic.report([Self.result(wall: 210, cpu: 112, seed: 4)])
        let entry = try #require(comparator.compare(baseline: baseline, current: busy).entries.first)
        #expect(entry.verdict == .inconclusive)
        #expect(entry.metric == .cpuTime)
        #expect(abs((entry.ratio ?? 0) - 1.12) < 0.01)
        #expect(entry.reason.reviews == [.busyMachineCannotTell])
        #expect(entry.explanation.contains("% slower (ratio 1.1"))
        #expect(entry.explanation.hasSuffix("measure again when the machine is quieter"))
    }

    /// Against the neighbours' push a change stands: the quieter side slower than a busy baseline.
    @Test func slowerCPUTimeOnTheQuieterSideIsARegression() throws {
        let busyBaseline = Synthetic.report([Self.result(wall: 190, cpu: 100, seed: 7)])
        let quietAndSlower = Synthetic.report([Self.result(wall: 112, cpu: 112, seed: 8)])
        let entry = try #require(comparator.compare(baseline: busyBaseline, current: quietAndSlower).entries.first)
        #expect(entry.metric == .cpuTime)
        #expect(entry.verdict == .regressed)
    }

    @Test func aBusyBaselineDoesNotMakeAnImprovement() throws {
        let busyBaseline = Synthetic.report([Self.result(wall: 190, cpu: 100, seed: 5)])
        let quiet = Synthetic.report([Self.result(wall: 100, cpu: 100, seed: 6)])
        let entry = try #require(comparator.compare(baseline: busyBaseline, current: quiet).entries.first)
        #expect(entry.verdict == .inconclusive)
        #expect(entry.explanation.contains("the baseline was on a CPU for 53%"))
    }

    /// Waiting only adds wall time: a busy run whose wall time stayed inside the threshold passes on it.
    @Test func aBusyRunInsideTheThresholdPassesOnWallTime() throws {
        let baseline = Synthetic.report([Self.result(wall: 100, cpu: 100, seed: 11)])
        let busy = Synthetic.report([Self.result(wall: 101, cpu: 80, seed: 12)])
        let entry = try #require(comparator.compare(baseline: baseline, current: busy).entries.first)
        #expect(entry.metric == .wallTime)
        #expect(entry.verdict == .noChange)
    }

    /// Per-process levels and a busy machine together: CPU time, compared by processes.
    @Test func aBusyRunAgainstAProcessBaselineIsJudgedOnCPUTimeByProcess() throws {
        var baseline = ProcessLevelComparisonTests.result("s/g/x", levels: [100, 101, 99, 100, 100.5], seed: 13)
        for index in baseline.samples.indices {
            baseline.samples[index].cpuNanoseconds = baseline.samples[index].wallNanoseconds
        }
        var busy = ProcessLevelComparisonTests.result("s/g/x", levels: [190, 195], seed: 14)
        for index in busy.samples.indices {
            busy.samples[index].cpuNanoseconds = busy.samples[index].wallNanoseconds * 0.6
        }
        let entry = try #require(
            comparator.compare(baseline: Synthetic.report([baseline]), current: Synthetic.report([busy])).entries.first)
        #expect(entry.metric == .cpuTime)
        // CPU time 114–117 against 100, judged between processes, on the busier side: no verdict.
        #expect(entry.verdict == .inconclusive)
        #expect(entry.reason.reviews == [.busyMachineCannotTell])
        #expect(entry.explanation.contains("between processes (5 vs 2)"))
    }

    @Test func equallyQuietSidesAreComparedByWallTime() throws {
        let baseline = Synthetic.report([Self.result(wall: 100, cpu: 99, seed: 7)])
        let slower = Synthetic.report([Self.result(wall: 120, cpu: 119, seed: 8)])
        let entry = try #require(comparator.compare(baseline: baseline, current: slower).entries.first)
        #expect(entry.metric == .wallTime)
        #expect(entry.verdict == .regressed)
    }

    /// A benchmark whose threads sleep (a queue hop) is mostly off the CPU on any machine: its
    /// CPU/wall ratio says nothing about neighbours.
    @Test func waitingBenchmarksAreNotTakenForABusyMachine() {
        let baseline = Self.result(wall: 100, cpu: 30, seed: 9)
        let current = Self.result(wall: 150, cpu: 20, seed: 10)
        #expect(MachineContention(baseline: baseline, current: current) == nil)
        #expect(MachineContention(baseline: baseline, current: baseline) == nil)
    }
}
