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
