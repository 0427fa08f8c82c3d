import Foundation
import Testing

@testable import PerfStatistics

@Suite struct QuantileIntervalTests {
    /// Textbook values: the distribution-free 95% interval of the median of 20 values is x(6)…x(15).
    @Test func medianRanksMatchTheTextbook() {
        #expect(QuantileInterval.ranks(count: 20, probability: 0.5) == 6...15)
    }

    /// P(no sample below the 10th percentile) = 0.9ⁿ must be ≤ 2.5%: 36 values, not 35.
    @Test func lowQuantilesNeedEnoughSamplesForTheLowerEnd() {
        #expect(QuantileInterval.ranks(count: 35, probability: 0.1) == nil)
        #expect(QuantileInterval.ranks(count: 36, probability: 0.1) == 1...8)
        #expect(QuantileInterval.ranks(count: 50, probability: 0.1) == 1...10)
        #expect(QuantileInterval.ranks(count: 0, probability: 0.5) == nil)
        #expect(QuantileInterval.ranks(count: 5, probability: 0.5) == nil)
    }

    @Test func smallestProbabilityWithAnIntervalIsChosenInOrder() {
        let candidates = [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4]
        #expect(QuantileInterval.smallestProbability(for: 50, from: candidates) == 0.1)
        #expect(QuantileInterval.smallestProbability(for: 25, from: candidates) == 0.15)
        #expect(QuantileInterval.smallestProbability(for: 10, from: candidates) == 0.35)
        #expect(QuantileInterval.smallestProbability(for: 3, from: candidates) == nil)
    }

    /// The interval's ends are the samples at its ranks, whatever order the values came in.
    @Test func intervalEndsAreOrderStatistics() throws {
        let values = (1...50).map(Double.init).reversed()
        let interval = try #require(QuantileInterval(of: Array(values), probability: 0.1))
        #expect(interval.lower == 1)
        #expect(interval.upper == 10)
        #expect(abs(interval.estimate - 5.9) < 1e-9)  // type 7: x(5) + 0.9·(x(6) − x(5))
        #expect(interval.lower <= interval.estimate && interval.estimate <= interval.upper)
    }

    /// The ranks really cover: the binomial mass between them is at least the level.
    @Test func rankedIntervalsCoverAtLeastTheLevel() throws {
        for (count, probability) in [(36, 0.1), (50, 0.1), (100, 0.1), (25, 0.15), (20, 0.5), (200, 0.9)] {
            let ranks = try #require(QuantileInterval.ranks(count: count, probability: probability))
            var coverage = 0.0
            for k in ranks.lowerBound...(ranks.upperBound - 1) {
                coverage += binomial(count, k) * pow(probability, Double(k)) * pow(1 - probability, Double(count - k))
            }
            #expect(coverage >= 0.95, "n = \(count), p = \(probability): \(coverage)")
        }
    }

    private func binomial(_ n: Int, _ k: Int) -> Double {
        (0..<k).reduce(1.0) { $0 * Double(n - $1) / Double($1 + 1) }
    }
}
