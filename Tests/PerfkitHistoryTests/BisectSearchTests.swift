import Testing

@testable import PerfkitHistory

/// The bisection's logic: the first bad commit in at most ⌈log2(N − 1)⌉ probes besides the ends,
/// and a stop, not a guess, when a probe is at neither level.
struct BisectSearchTests {
    /// Every place the change can be, in ranges of 2 to 40 commits: found, within the bound.
    @Test func findsEveryFirstBadCommitWithinTheBound() {
        for count in 2...40 {
            for firstBad in 1..<count {
                var search = BisectSearch(count: count)
                var probes = 0
                while let index = search.next {
                    probes += 1
                    search.record(index >= firstBad ? .bad : .good, at: index)
                }
                #expect(search.outcome == .firstBad(index: firstBad), "count \(count), first bad \(firstBad)")
                #expect(probes <= BisectSearch.maximumProbes(count: count), "count \(count): \(probes) probes")
            }
        }
        #expect(BisectSearch.maximumProbes(count: 26) == 5)
        #expect(BisectSearch.maximumProbes(count: 2) == 0)
    }

    /// Good, bad, good again: the probe at neither level — or one that contradicts the ends — stops
    /// the search with where it stood.
    @Test func aProbeAtNeitherLevelStopsTheSearch() {
        var search = BisectSearch(count: 9)
        let index = search.next!
        search.record(.neither(fraction: 0.5), at: index)
        #expect(search.outcome == .notMonotonic(index: index, fraction: 0.5))
        #expect(search.next == nil)
    }

    @Test func countsAreJudgedByWhereTheyLie() {
        let judge = BisectJudge()
        #expect(judge.verdict(value: 1000, good: 1000, bad: 1060) == .good)
        #expect(judge.verdict(value: 1060, good: 1000, bad: 1060) == .bad)
        #expect(judge.verdict(value: 1030, good: 1000, bad: 1060) == .neither(fraction: 0.5))
        // A third level beyond the bad end (a second regression) is neither.
        #expect(judge.verdict(value: 1120, good: 1000, bad: 1060) == .neither(fraction: 2))
        // Improvements bisect the same way.
        #expect(judge.verdict(value: 905, good: 1000, bad: 900) == .bad)
    }

    /// Times: the median places a probe only when the U test tells it from the other end.
    @Test func timesNeedTheTestToTellThemFromTheOtherEnd() {
        let judge = BisectJudge()
        let good = (0..<20).map { 100 + Double($0 % 5) * 0.2 }
        let bad = (0..<20).map { 110 + Double($0 % 5) * 0.2 }
        #expect(judge.verdict(samples: good.map { $0 + 0.1 }, good: good, bad: bad) == .good)
        #expect(judge.verdict(samples: bad.map { $0 - 0.1 }, good: good, bad: bad) == .bad)
        // One sample at the good median: too few for the test to tell it from the bad end (the
        // smallest two-sided p of 1 against 20 is 2/21).
        guard case .neither = judge.verdict(samples: [100.2], good: good, bad: bad) else {
            Issue.record("one sample should not place a probe")
            return
        }
    }
}
