import Foundation
import Testing

@testable import PerfStatistics

@Suite struct SignedRankIntervalTests {
    /// Published critical values of Wilcoxon's signed-rank statistic, two-sided 5%: T ≤ 0 for 6
    /// differences, 8 for 10, 52 for 20, 137 for 30; the interval's lower end is the next Walsh average.
    @Test func criticalValuesMatchTheTables() {
        #expect(SignedRankInterval.lowerRank(count: 6, level: 0.95) == 1)
        #expect(SignedRankInterval.lowerRank(count: 10, level: 0.95) == 9)
        #expect(SignedRankInterval.lowerRank(count: 20, level: 0.95) == 53)
        #expect(SignedRankInterval.lowerRank(count: 30, level: 0.95) == 138)
        #expect(SignedRankInterval.lowerRank(count: 5, level: 0.95) == nil)
        #expect(SignedRankInterval.lowerRank(count: 0, level: 0.95) == nil)
        #expect(SignedRankInterval(of: [1, 2, 3, 4, 5]) == nil)
    }

    /// Beyond `exactLimit` the normal approximation takes over; where both can be computed they agree
    /// to a rank.
    @Test func theNormalApproximationAgreesWithTheExactDistribution() {
        for count in [30, 50, 100, 200, SignedRankInterval.exactLimit] {
            let exact = SignedRankInterval.exactCritical(count: count, tail: 0.025)
            let approximate = SignedRankInterval.approximateCritical(count: count, tail: 0.025)
            #expect(abs(exact - approximate) <= 1, "\(count) differences: \(exact) exact, \(approximate) approximated")
        }
        #expect(SignedRankInterval.lowerRank(count: 1000, level: 0.95) != nil)
    }

    /// The estimate is the median of the Walsh averages and the ends are Walsh averages at the
    /// critical rank: for 1…10 (in any order) the 55 averages run 1, 1.5, 2, 2, 2.5, 2.5, 3, 3, 3, …,
    /// symmetric about 5.5, and the 9th from each end is 3 and 8. Moving the largest value far out
    /// leaves the estimate where it was (a mean would move by 9).
    @Test func theEstimateIsTheMedianOfTheWalshAverages() throws {
        let differences: [Double] = [10, 1, 3, 2, 4, 5, 6, 7, 8, 9]
        let interval = try #require(SignedRankInterval(of: differences))
        #expect(interval.estimate == 5.5)
        #expect(interval.lower == 3)
        #expect(interval.upper == 8)
        #expect(interval.count == 10)
        let outlier = try #require(SignedRankInterval(of: differences.map { $0 == 10 ? 100 : $0 }))
        #expect(outlier.estimate == 5.5)
        let mapped = interval.mapped { $0 * 2 }
        #expect(mapped.estimate == 11 && mapped.lower == 6 && mapped.upper == 16)
    }

    /// Symmetric noise around a centre: the interval covers the centre in about 95% of samples and is
    /// narrower than the median's distribution-free interval from the same differences.
    @Test func intervalsCoverTheCentreAndAreNarrowerThanTheMedians() throws {
        var generator = SplitMix64(seed: 7)
        var covered = 0
        var narrower = 0
        let trials = 200  // seeded: the same 200 samples every run (4 s in a debug build)
        for _ in 0..<trials {
            // A sum of uniforms: symmetric about 0.3, roughly normal.
            let differences = (0..<60).map { _ in 0.3 + (0..<4).map { _ in generator.nextUnit() - 0.5 }.reduce(0, +) }
            let interval = try #require(SignedRankInterval(of: differences))
            if interval.lower <= 0.3 && 0.3 <= interval.upper { covered += 1 }
            let median = try #require(QuantileInterval(of: differences, probability: 0.5))
            if interval.upper - interval.lower < median.upper - median.lower { narrower += 1 }
        }
        #expect(covered >= trials * 92 / 100, "covered \(covered) of \(trials)")
        #expect(narrower >= trials * 3 / 4, "narrower in \(narrower) of \(trials)")
    }
}
