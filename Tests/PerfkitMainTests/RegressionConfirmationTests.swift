import Foundation
import PerfReport
import Testing

@testable import PerfkitMain

/// A time regression found by `run --processes N --baseline` stands only when a second measurement
/// shows it again.
@Suite struct RegressionConfirmationTests {
    static func entry(_ id: String, _ verdict: ComparisonEntry.Verdict, ratio: Double, metric: Metric = .wallTime)
        -> ComparisonEntry
    {
        ComparisonEntry(
            id: id, metric: metric, baselineMedian: 100, currentMedian: 100 * ratio, ratio: ratio,
            ratioConfidenceInterval: nil, pValue: 0.01, adjustedPValue: 0.01, thresholdPercent: 5, verdict: verdict,
            explanation: "first")
    }

    static func comparison(_ entries: [ComparisonEntry]) -> Comparison {
        Comparison(
            baselineCreatedAt: nil, baselineEnvironment: nil, thresholdPercent: 5, alpha: 0.05,
            multipleComparisonControl: "holm", entries: entries)
    }

    @Test func onlyTimeRegressionsAreSuspects() {
        let first = Self.comparison([
            Self.entry("a", .regressed, ratio: 1.1), Self.entry("b", .noChange, ratio: 1),
            Self.entry("c", .regressed, ratio: 1.1, metric: .instructions),
        ])
        #expect(RegressionConfirmation.suspects(first) == ["a"])
        let filter = RegressionConfirmation.filter(selecting: ["s/g/a+b", "s/g/c"])
        let expression = try? NSRegularExpression(pattern: filter)
        func selects(_ id: String) -> Bool {
            expression?.firstMatch(in: id, range: NSRange(id.startIndex..., in: id)) != nil
        }
        #expect(selects("s/g/a+b") && selects("s/g/c"))
        #expect(!selects("s/g/aab") && !selects("s/g/c2") && !selects("x/s/g/c"))
    }

    @Test func confirmedStandsUnconfirmedIsWithinNoise() {
        let first = Self.comparison([Self.entry("a", .regressed, ratio: 1.1), Self.entry("b", .regressed, ratio: 1.07)])
        let second = Self.comparison([
            Self.entry("a", .regressed, ratio: 1.09), Self.entry("b", .noChange, ratio: 1.01),
        ])
        let reviewed = RegressionConfirmation.apply(first: first, second: second).entries
        #expect(reviewed[0].verdict == .regressed)
        #expect(reviewed[0].explanation.hasSuffix("confirmed by a second measurement (ratio 1.090)"))
        #expect(reviewed[1].verdict == .withinNoise)
        #expect(reviewed[1].explanation.contains("not confirmed"))
    }

    @Test func aSecondLookThatCannotJudgeIsInconclusive() {
        let first = Self.comparison([Self.entry("a", .regressed, ratio: 1.1), Self.entry("b", .regressed, ratio: 1.1)])
        let second = Self.comparison([Self.entry("a", .inconclusive, ratio: 1.3)])
        let reviewed = RegressionConfirmation.apply(first: first, second: second).entries
        #expect(reviewed.map(\.verdict) == [.inconclusive, .inconclusive])
    }
}
