import PerfReport
import Testing

@testable import Harness

@Suite struct StabilityRulesTests {
    static func samples(_ values: [Double], involuntary: [Int]? = nil) -> [Sample] {
        values.enumerated().map { index, value in
            Sample(iterations: 1, wallNanoseconds: value, involuntaryContextSwitches: involuntary?[index])
        }
    }

    static func rules(_ values: [Double]) -> [String] {
        StabilityRules.warnings(for: SampleStatistics.summarize(values), samples: samples(values)).map(\.rule)
    }

    @Test func steadySamplesRaiseNoWarning() {
        let values = Synthetic.normal(count: 25, mean: 100, relativeSpread: 0.005, seed: 1)
        #expect(Self.rules(values) == [])
    }

    @Test func wideSpreadFiresTheCoefficientOfVariationRule() throws {
        // 90 and 110 alternating: mean 100, sd ≈ 10.26, CV ≈ 10.3%.
        let values = (0..<20).map { $0 % 2 == 0 ? 90.0 : 110.0 }
        let stats = SampleStatistics.summarize(values)
        let warnings = StabilityRules.warnings(for: stats, samples: Self.samples(values))
        let cv = try #require(warnings.first { $0.rule == "cv-above-5-percent" })
        #expect(cv.message.contains("10.3%"))
        #expect(cv.message.contains("5.0%"))
    }

    @Test func uncertainMedianFiresTheIntervalRule() throws {
        // Two clusters 20% apart with the median between them: the bootstrap median jumps
        // between the clusters, so its interval spans far more than 10% of the median.
        let values = (0..<9).map { _ in 100.0 } + (0..<8).map { _ in 120.0 }
        let stats = SampleStatistics.summarize(values)
        let warnings = StabilityRules.warnings(for: stats, samples: Self.samples(values))
        let rule = try #require(warnings.first { $0.rule == "ci-wider-than-10-percent-of-median" })
        #expect(rule.message.contains("ns/op"))
        #expect(rule.message.contains("10.0%"))
        // A tight distribution of the same size does not fire it.
        #expect(!Self.rules(Synthetic.normal(count: 17, mean: 100, relativeSpread: 0.01, seed: 3)).contains(rule.rule))
    }

    @Test func severeOutliersFireAtTenPercent() throws {
        // 18 steady values and 2 far above: 2 of 20 = 10% severe outliers.
        let steady = (0..<18).map { 100 + Double($0 % 3) }
        let two = steady + [500, 600]
        let warning = try #require(
            StabilityRules.warnings(for: SampleStatistics.summarize(two), samples: Self.samples(two))
                .first { $0.rule == "severe-outliers" })
        #expect(warning.message.hasPrefix("2 of 20 samples are severe outliers"))
        // One of 19 (5%) does not.
        #expect(!Self.rules(steady + [500]).contains("severe-outliers"))
    }

    @Test func fewSamplesFireTheSampleCountRule() throws {
        let values: [Double] = [100, 100.1, 99.9]
        let warnings = StabilityRules.warnings(for: SampleStatistics.summarize(values), samples: Self.samples(values))
        let warning = try #require(warnings.first { $0.rule == "too-few-samples" })
        #expect(warning.message.contains("only 3 samples"))
        #expect(!Self.rules([100, 100.1, 99.9, 100, 100.05]).contains("too-few-samples"))
    }

    @Test func nonPositiveMedianIsFlagged() {
        #expect(Self.rules([-0.2, 0, 0.1, -0.1, 0]).contains("median-not-positive"))
    }

    @Test func messagesMentionPreemptedSamples() throws {
        let values = (0..<20).map { $0 % 2 == 0 ? 90.0 : 110.0 }
        let involuntary = (0..<20).map { $0 < 6 ? 1 : 0 }
        let warnings = StabilityRules.warnings(
            for: SampleStatistics.summarize(values), samples: Self.samples(values, involuntary: involuntary))
        let cv = try #require(warnings.first { $0.rule == "cv-above-5-percent" })
        #expect(cv.message.contains("6 of 20 samples were preempted"))
    }
}

@Suite struct StabilityFloorTests {
    @Test func noRelativeSpreadWarningsBelowTheMeasurableFloor() {
        let values = [1e-9, 5e-6, 2e-7, 1e-8, 3e-6, 4e-9, 2e-6, 1e-7]
        let stats = SampleStatistics.summarize(values)
        #expect(stats.coefficientOfVariation > 0.05)
        let samples = values.map { Sample(iterations: 1 << 40, wallNanoseconds: $0 * Double(1 << 40)) }
        #expect(StabilityRules.warnings(for: stats, samples: samples).isEmpty)
    }
}
