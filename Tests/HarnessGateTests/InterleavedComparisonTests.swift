import Foundation
import PerfReport
import Testing

@testable import Harness

@Suite struct InterleavedComparisonTests {
    @Test func roundsAlternateWhichSideGoesFirst() {
        let firsts = (0..<4).map { InterleavedComparison.order(round: $0).first }
        #expect(firsts == [.baseline, .current, .baseline, .current])
        #expect(InterleavedComparison.order(round: 1).second == .baseline)
    }

    @Test func mergingKeepsEverySampleInRoundOrderAndRecomputesStatistics() throws {
        let round1 = GateFixtures.report([
            GateFixtures.result("S/g/a", nanosecondsPerOperation: [1, 2, 3]),
            GateFixtures.result("S/g/b", nanosecondsPerOperation: [100, 100]),
        ])
        let round2 = GateFixtures.report([
            GateFixtures.result("S/g/a", nanosecondsPerOperation: [4, 5]),
            GateFixtures.result("S/g/b", nanosecondsPerOperation: [200, 200]),
        ])
        let merged = try #require(InterleavedComparison.merge([round1, round2]))
        #expect(merged.benchmarks.map(\.id) == ["S/g/a", "S/g/b"])
        let a = merged.benchmarks[0]
        #expect(a.wallNanosecondsPerOperation == [1, 2, 3, 4, 5])
        #expect(a.wallTime.count == 5)
        #expect(a.wallTime.median == 3)
        #expect(a.cpuTime?.median == 3)
        #expect(merged.benchmarks[1].wallTime.median == 150)
        #expect(merged.settings.samples == 16)
        #expect(merged.complete)
    }

    /// Round 0 of one process and round 0 of the next are not the same moment: merged rounds are
    /// numbered on, so that no pairing by round matches samples of different processes.
    @Test func mergingNumbersEachProcesssRoundsAfterThePreviousOnes() throws {
        func report(_ values: [Double]) -> Report {
            var result = GateFixtures.result("S/g/a", nanosecondsPerOperation: values)
            for index in result.samples.indices { result.samples[index].round = index }
            var report = GateFixtures.report([result])
            report.settings.rounds = values.count
            return report
        }
        let merged = try #require(InterleavedComparison.merge([report([1, 2]), report([3, 4, 5]), report([6])]))
        #expect(merged.benchmarks[0].samples.map(\.round) == [0, 1, 2, 3, 4, 5])
    }

    @Test func aMergeIsIncompleteWhenARoundWas() throws {
        let merged = try #require(
            InterleavedComparison.merge([
                GateFixtures.report([GateFixtures.result("S/g/a")]),
                GateFixtures.report([GateFixtures.result("S/g/a")], complete: false),
            ]))
        #expect(!merged.complete)
        #expect(merged.incompleteReason == "interrupted")
        #expect(InterleavedComparison.merge([]) == nil)
    }

    @Test func aBenchmarkInOnlySomeRoundsKeepsWhatItHas() throws {
        let merged = try #require(
            InterleavedComparison.merge([
                GateFixtures.report([GateFixtures.result("S/g/a", nanosecondsPerOperation: [1, 2])]),
                GateFixtures.report([
                    GateFixtures.result("S/g/a", nanosecondsPerOperation: [3]),
                    GateFixtures.result("S/g/late", nanosecondsPerOperation: [7, 8]),
                ]),
            ]))
        #expect(merged.benchmarks.map(\.id) == ["S/g/a", "S/g/late"])
        #expect(merged.benchmarks[1].samples.count == 2)
    }

    // MARK: - Re-running suspects

    /// A comparison of `id` with the current side `slowdown` times the baseline, from spread samples.
    func compare(_ ids: [String: Double], phase: Int = 0) -> Comparison {
        let baseline = ids.keys.sorted().map {
            GateFixtures.result(
                $0, nanosecondsPerOperation: GateFixtures.spread(count: 24, mean: 100, relativeSpread: 0.02))
        }
        let current = ids.keys.sorted().map { id in
            GateFixtures.result(
                id,
                nanosecondsPerOperation: GateFixtures.spread(
                    count: 24, mean: 100 * ids[id]!, relativeSpread: 0.02, phase: phase))
        }
        return Comparator().compare(
            baseline: GateFixtures.report(baseline), current: GateFixtures.report(current), metric: .cpuTime)
    }

    @Test func onlyRegressionsAreSuspects() {
        let first = compare(["S/g/slower": 1.2, "S/g/same": 1.0, "S/g/faster": 0.8])
        #expect(first.entries.first { $0.id == "S/g/faster" }?.verdict == .improved)
        #expect(InterleavedComparison.suspects(first) == ["S/g/slower"])
    }

    @Test func aRegressionTheRerunConfirmsStands() throws {
        let first = compare(["S/g/slower": 1.2, "S/g/same": 1.0])
        let rerun = compare(["S/g/slower": 1.2], phase: 3)
        let final = InterleavedComparison.confirm(first: first, rerun: rerun)
        let entry = try #require(final.entries.first { $0.id == "S/g/slower" })
        #expect(entry.verdict == .regressed)
        #expect(entry.metric == .cpuTime)
        #expect(entry.explanation.hasPrefix("confirmed by a re-run: "))
        #expect(final.entries.first { $0.id == "S/g/same" } == first.entries.first { $0.id == "S/g/same" })
        #expect(final.hasRegression)
    }

    @Test func aRegressionTheRerunDoesNotConfirmIsDropped() throws {
        // A neighbour's burst made the first pass look 20% slower; the re-run sees no change.
        let first = compare(["S/g/flaky": 1.2, "S/g/same": 1.0])
        let rerun = compare(["S/g/flaky": 1.0], phase: 5)
        let final = InterleavedComparison.confirm(first: first, rerun: rerun)
        let entry = try #require(final.entries.first { $0.id == "S/g/flaky" })
        #expect(entry.verdict == .noChange)
        #expect(entry.explanation.contains("was not confirmed by a re-run"))
        #expect(!final.hasRegression)
        #expect(final.entries.count == first.entries.count)
    }

    @Test func aSuspectTheRerunMissedStaysRegressed() throws {
        let first = compare(["S/g/slower": 1.2])
        let rerun = compare([:])
        let final = InterleavedComparison.confirm(first: first, rerun: rerun)
        #expect(final.entries.first?.verdict == .regressed)
        #expect(final.entries.first?.explanation.hasSuffix("so the regression stands") == true)
    }

    @Test func theRerunFilterMatchesExactlyTheSuspects() throws {
        let ids = ["Pixel/scale/nearest[64]", "S/g/a.b", "S/g/c"]
        let pattern = InterleavedComparison.filter(matchingExactly: ids)
        let regex = try NSRegularExpression(pattern: pattern)
        func matches(_ text: String) -> Bool {
            regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        }
        for id in ids { #expect(matches(id)) }
        #expect(!matches("Pixel/scale/nearest[64]x"))
        #expect(!matches("Pixel/scale/nearest6"))
        #expect(!matches("S/g/aXb"))
        #expect(!matches("S/g/c/d"))
    }
}
