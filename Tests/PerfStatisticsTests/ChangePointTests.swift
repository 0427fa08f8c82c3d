import Testing

@testable import PerfStatistics

/// Change points along a series of results (E-Divisive means, Otava's deterministic form).
struct ChangePointTests {
    let detector = ChangePointDetector()

    /// One level for 10 commits, 6% slower for 10, then 10% faster than the first for 10, with
    /// 0.3% noise: exactly those two points, with their levels.
    @Test func findsAShiftUpAndALaterShiftDownAndNothingElse() {
        let values =
            Synthetic.normal(count: 10, mean: 100, relativeSpread: 0.003, seed: 1)
            + Synthetic.normal(count: 10, mean: 106, relativeSpread: 0.003, seed: 2)
            + Synthetic.normal(count: 10, mean: 90, relativeSpread: 0.003, seed: 3)
        let points = detector.changePoints(in: values)
        #expect(points.map(\.index) == [10, 20])
        #expect(points.allSatisfy { $0.pValue < 0.001 })
        #expect(abs(points[0].relativeShift - 0.06) < 0.01, "\(points)")
        #expect(abs(points[1].relativeShift - (90.0 / 106 - 1)) < 0.01, "\(points)")
    }

    /// A regression that is undone later (A B A) is two points, not none.
    @Test func aShiftThatIsUndoneIsTwoPoints() {
        let values =
            Synthetic.normal(count: 12, mean: 50, relativeSpread: 0.005, seed: 4)
            + Synthetic.normal(count: 6, mean: 55, relativeSpread: 0.005, seed: 5)
            + Synthetic.normal(count: 12, mean: 50, relativeSpread: 0.005, seed: 6)
        #expect(detector.changePoints(in: values).map(\.index) == [12, 18])
    }

    /// Pure noise (one build measured again and again, 2% spread): no change point in any of 50
    /// seeded series of 30.
    @Test func pureNoiseHasNoChangePoint() {
        for seed in UInt64(100)..<150 {
            let values = Synthetic.normal(count: 30, mean: 100, relativeSpread: 0.02, seed: seed)
            #expect(detector.changePoints(in: values).isEmpty, "seed \(seed)")
        }
    }

    /// Exact counts (no spread): a shift is certain, so the minimum shift decides alone.
    @Test func exactCountsShiftByTheMinimumOrNot() {
        let small = Array(repeating: 1000.0, count: 8) + Array(repeating: 1010.0, count: 8)
        #expect(detector.changePoints(in: small).isEmpty, "1% is under the 2% minimum")
        let large = Array(repeating: 1000.0, count: 8) + Array(repeating: 1030.0, count: 8)
        let points = detector.changePoints(in: large)
        #expect(points.map(\.index) == [8])
        #expect(points.first?.pValue == 0)
        #expect(ChangePointDetector(minRelativeShift: 0.05).changePoints(in: large).isEmpty)
    }

    @Test func aConstantOrShortSeriesHasNone() {
        #expect(detector.changePoints(in: Array(repeating: 7, count: 20)).isEmpty)
        #expect(detector.changePoints(in: [1, 2, 3]).isEmpty)
        #expect(detector.changePoints(in: []).isEmpty)
    }

    /// The last two commits are enough to show a new level (the CI case: a regression just landed).
    @Test func aShiftInTheLastTwoPointsIsFound() {
        let values = Synthetic.normal(count: 20, mean: 100, relativeSpread: 0.003, seed: 7) + [110, 110.2]
        #expect(detector.changePoints(in: values).map(\.index) == [20])
    }
}
