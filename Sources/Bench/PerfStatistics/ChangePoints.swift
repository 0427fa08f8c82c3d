import Foundation

/// Level shifts in one benchmark's results along commit order (`perfkit history changes`) by E-Divisive means in the deterministic form Apache Otava
/// (Hunter) uses: split each segment where the energy statistic peaks while a two-sided t-test
/// between its two sides says the split may be real, then merge weak points — test every change
/// point against the segments beside it and drop the weakest that fails (p ≥ `maxPValue`, or a
/// shift smaller than `minRelativeShift`), until every one passes. Deterministic: no permutations,
/// the same series gives the same points.
///
/// A series of exact counts (instructions) has no spread within a level: any move of its mean is
/// then certain, and the minimum shift alone decides. Points are not yet weighted by their
/// intervals; the energy statistic is O(n²) per candidate split (fine for hundreds of commits).
package struct ChangePointDetector: Sendable {
    /// A change point's p-value must be below this against its neighbouring segments (Otava's
    /// default, 0.001).
    package var maxPValue: Double
    /// And its relative shift of the mean at least this (0.02: 2%; a benchmark's own threshold is
    /// the usual choice).
    package var minRelativeShift: Double
    /// The least number of points on each side of a change (a t-test needs two for a spread).
    package var minSegment: Int

    /// A split is kept for the merge phase when its t-test p-value is below this, looser than
    /// `maxPValue`: a segment holding two shifts dilutes each side's test until it is split again.
    static let splitPValue = 0.05

    package init(maxPValue: Double = 0.001, minRelativeShift: Double = 0.02, minSegment: Int = 2) {
        precondition(maxPValue > 0 && maxPValue < 1, "maxPValue must be in (0, 1)")
        precondition(minRelativeShift >= 0, "minRelativeShift must not be negative")
        precondition(minSegment >= 2, "a segment needs at least two points")
        self.maxPValue = maxPValue
        self.minRelativeShift = minRelativeShift
        self.minSegment = minSegment
    }

    /// One level shift: the series' value changed from `index` on.
    package struct ChangePoint: Sendable, Equatable {
        /// The first point of the new level.
        package var index: Int
        /// The points of the segments compared: from the previous change point (or the start) to
        /// `index`, and from `index` to the next change point (or the end).
        package var before: Range<Int>
        package var after: Range<Int>
        /// The means of the segments before and after (between the neighbouring change points).
        package var meanBefore: Double
        package var meanAfter: Double
        /// The two-sided p-value between those segments: the larger of Student's and Welch's t-test
        /// (`tTestPValue`). An earlier form multiplied Student's by the places the split could have
        /// taken (Bonferroni), which cured Student's false alarms in seeded noise but not in real
        /// runs and cost the two-point case; requiring Welch's agreement does both (docs/history.md).
        package var pValue: Double

        /// (after − before) / before: positive when the value grew (slower, for a time or a count).
        package var relativeShift: Double { meanBefore == 0 ? 0 : (meanAfter - meanBefore) / abs(meanBefore) }
    }

    /// The change points of `values`, in order.
    ///
    /// - Parameter splittable: where a new level may start; nil for anywhere. The history passes
    ///   the first run of each commit, so several runs of one commit stay on one level.
    package func changePoints(in values: [Double], splittable: Set<Int>? = nil) -> [ChangePoint] {
        guard values.count >= 2 * minSegment else { return [] }
        let allowed = { (index: Int) in splittable?.contains(index) ?? true }
        var splits: [Int] = []
        split(values, range: 0..<values.count, allowed: allowed, into: &splits)
        splits.sort()
        // Merge weak points: the weakest failing point goes, and the others are judged again
        // against their new neighbours, until every point passes.
        while true {
            let points = judged(splits, in: values)
            let failing = points.indices.filter { !passes(points[$0]) }
            guard let weakest = failing.max(by: { weaker(points[$1], than: points[$0]) }) else { return points }
            splits.remove(at: weakest)
        }
    }

    private func passes(_ point: ChangePoint) -> Bool {
        point.pValue < maxPValue && abs(point.relativeShift) >= minRelativeShift
    }

    /// True when `a` is the weaker point: the larger p-value, then the smaller shift.
    private func weaker(_ a: ChangePoint, than b: ChangePoint) -> Bool {
        a.pValue != b.pValue ? a.pValue > b.pValue : abs(a.relativeShift) < abs(b.relativeShift)
    }

    /// Each split tested against the segments between its neighbours.
    private func judged(_ splits: [Int], in values: [Double]) -> [ChangePoint] {
        splits.indices.map { i in
            let start = i == 0 ? 0 : splits[i - 1]
            let end = i == splits.count - 1 ? values.count : splits[i + 1]
            let before = values[start..<splits[i]]
            let after = values[splits[i]..<end]
            return ChangePoint(
                index: splits[i], before: start..<splits[i], after: splits[i]..<end, meanBefore: Self.mean(before),
                meanAfter: Self.mean(after),
                pValue: Self.tTestPValue(before, after))
        }
    }

    /// E-Divisive's recursion: the peak of the energy statistic in `range`, kept when its sides
    /// differ by the t-test, then each side on its own.
    private func split(_ values: [Double], range: Range<Int>, allowed: (Int) -> Bool, into splits: inout [Int]) {
        guard range.count >= 2 * minSegment else { return }
        var best: (index: Int, energy: Double)?
        for tau in (range.lowerBound + minSegment)...(range.upperBound - minSegment) where allowed(tau) {
            let energy = Self.energy(values[range.lowerBound..<tau], values[tau..<range.upperBound])
            if energy > (best?.energy ?? 0) { best = (tau, energy) }
        }
        guard let best,
            Self.tTestPValue(values[range.lowerBound..<best.index], values[best.index..<range.upperBound])
                < Self.splitPValue
        else { return }
        splits.append(best.index)
        split(values, range: range.lowerBound..<best.index, allowed: allowed, into: &splits)
        split(values, range: best.index..<range.upperBound, allowed: allowed, into: &splits)
    }

    /// Székely and Rizzo's energy distance between the two sides, scaled by m·n/(m+n) (Matteson and
    /// James's Q with α = 1): large where the split separates two distributions.
    static func energy(_ x: ArraySlice<Double>, _ y: ArraySlice<Double>) -> Double {
        let m = Double(x.count)
        let n = Double(y.count)
        var between = 0.0
        for a in x { for b in y { between += abs(a - b) } }
        let within = { (s: ArraySlice<Double>) -> Double in
            guard s.count > 1 else { return 0 }
            var sum = 0.0
            var i = s.startIndex
            while i < s.endIndex {
                var j = i + 1
                while j < s.endIndex {
                    sum += abs(s[i] - s[j])
                    j += 1
                }
                i += 1
            }
            return sum / (Double(s.count) * Double(s.count - 1) / 2)
        }
        let distance = 2 * between / (m * n) - within(x) - within(y)
        return m * n / (m + n) * distance
    }

    static func mean(_ s: ArraySlice<Double>) -> Double { s.reduce(0, +) / Double(s.count) }

    /// The mean of a level and its 95% Student-t interval (the interval is the mean itself for
    /// one value or for exact counts without spread).
    package static func levelInterval(_ values: ArraySlice<Double>) -> (mean: Double, lower: Double, upper: Double) {
        let m = mean(values)
        guard values.count > 1 else { return (m, m, m) }
        let variance = values.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(values.count - 1)
        let half =
            StudentT.quantile(0.975, degreesOfFreedom: Double(values.count - 1))
            * (variance / Double(values.count)).squareRoot()
        return (m, m - half, m + half)
    }

    /// The larger two-sided p-value of Student's t-test (pooled variance) and Welch's (each side its
    /// own) between two samples of at least two values each: a change must convince both.
    ///
    /// Each alone cries wolf where one side is short, in opposite ways; both agree on a real shift
    /// (docs/history.md#change-points). Two samples without spread (exact counts) differ for certain
    /// when their means do, and not when they do not.
    static func tTestPValue(_ x: ArraySlice<Double>, _ y: ArraySlice<Double>) -> Double {
        let (mx, my) = (mean(x), mean(y))
        let (nx, ny) = (Double(x.count), Double(y.count))
        let squaresX = x.reduce(0) { $0 + ($1 - mx) * ($1 - mx) }
        let squaresY = y.reduce(0) { $0 + ($1 - my) * ($1 - my) }
        let df = nx + ny - 2
        let pooled = (squaresX + squaresY) / df * (1 / nx + 1 / ny)
        guard pooled > 0 else { return mx == my ? 1 : 0 }
        let student = StudentT.twoSidedPValue((mx - my) / pooled.squareRoot(), degreesOfFreedom: df)
        let (vx, vy) = (squaresX / (nx - 1) / nx, squaresY / (ny - 1) / ny)
        let welchDF = (vx + vy) * (vx + vy) / (vx * vx / (nx - 1) + vy * vy / (ny - 1))
        let welch = StudentT.twoSidedPValue((mx - my) / (vx + vy).squareRoot(), degreesOfFreedom: welchDF)
        return max(student, welch)
    }
}
