import Foundation
@testable import Harness
import PerfReport
import Testing

/// Sampled time profiles: stacks made a per-operation profile, and the share test that names a
/// function only when its part of the time grew beyond what the samples can tell.
@Suite struct TimeProfileTests {
    /// A time profile of `functions` (name, exclusive ns/op) with `samples` behind it.
    static func profile(_ functions: [(String, Double)], omitted: Double = 0, samples: Int) -> FunctionProfile {
        FunctionProfile(
            functions: functions.map { FunctionProfile.Function(name: $0.0, exclusive: $0.1, inclusive: $0.1) },
            edges: [], omittedExclusive: omitted, samples: samples)
    }

    static let base = profile(
        [("Heap.popMin", 400), ("drainChecksumStep", 300), ("Heap._bubbleDown", 200), ("swift_retain", 80)],
        omitted: 20, samples: 500)

    @Test func aMachineThatSlowsEveryFunctionAlikeIsGivenNoCulprit() throws {
        let slower = Self.profile(
            Self.base.functions.map { ($0.name, $0.exclusive * 1.3) }, omitted: Self.base.omittedExclusive * 1.3,
            samples: 500)
        let differential = try #require(FunctionGrowth.timeDifferential(base: Self.base, current: slower))
        #expect(differential.grown.isEmpty)
        #expect(differential.isSampled)
        let (heading, lines) = ComparisonWording.functionDifferential(differential)
        #expect(lines.isEmpty)
        #expect(heading.hasPrefix("no function's share of the sampled CPU time grew"), "\(heading)")
    }

    @Test func theOneFunctionThatGrewIsListedWithItsInterval() throws {
        let grown = Self.profile(
            [("Heap.popMin", 400), ("drainChecksumStep", 600), ("Heap._bubbleDown", 200), ("swift_retain", 80)],
            omitted: 20, samples: 650)
        let differential = try #require(FunctionGrowth.timeDifferential(base: Self.base, current: grown))
        #expect(differential.grown.map(\.name) == ["drainChecksumStep"])
        let change = try #require(differential.grown.first)
        #expect(change.exclusiveGrowth == 300)
        let low = try #require(change.growthLow)
        let high = try #require(change.growthHigh)
        #expect(low > 0 && low < 300 && high > 300)
        let line = ComparisonWording.functionChange(change)
        #expect(line.hasPrefix("drainChecksumStep +300 ns/op sampled [+218, +382] (exclusive"), "\(line)")
    }

    @Test func aShareWithinItsIntervalIsNotListed() throws {
        // 2% more of the time on 100 samples a side: well inside the interval.
        let base = Self.profile([("a", 500), ("b", 500)], samples: 100)
        let new = Self.profile([("a", 520), ("b", 480)], samples: 100)
        let differential = try #require(FunctionGrowth.timeDifferential(base: base, current: new))
        #expect(differential.grown.isEmpty)
    }

    @Test func anInstructionProfileHasNoTimeDifferential() {
        let counted = FunctionProfile(functions: [], edges: [], omittedExclusive: 10)
        #expect(FunctionGrowth.timeDifferential(base: counted, current: Self.base) == nil)
    }

    @Test func sampledStacksBecomeAProfileWithoutTheSharedOuterFrames() {
        // Innermost first; `runner` and `body` are on every stack.
        let graph = CallgrindCallGraph(sampledStacks: [
            (["leaf", "work", "body", "runner"], 3_000),
            (["work", "body", "runner"], 1_000),
            (["other", "body", "runner"], 1_000),
        ])
        #expect(graph.exclusive == ["leaf": 3_000, "work": 1_000, "other": 1_000])
        #expect(graph.inclusive["work"] == 4_000)
        #expect(graph.inclusive["body"] == nil)
        var profile = graph.profile(iterations: 10)
        profile.samples = 5
        #expect(profile.function(named: "leaf")?.exclusive == 300)
        #expect(profile.function(named: "work")?.inclusive == 400)
        #expect(profile.total == 500)
    }

    @Test func aWallTimeRegressionCarriesItsTimeDifferentialThroughTheReport() throws {
        var base = GateFixtures.result("S/g/heap", instructions: 5000)
        base.timeProfile = Self.base
        var new = GateFixtures.result("S/g/heap", instructions: 5000)
        new.timeProfile = Self.profile(
            [("Heap.popMin", 400), ("drainChecksumStep", 600), ("Heap._bubbleDown", 200), ("swift_retain", 80)],
            omitted: 20, samples: 650)
        var entry = ComparisonEntry(
            id: "S/g/heap", metric: .wallTime, thresholdPercent: 5, verdict: .regressed,
            reason: ComparisonReason(.worded("slower")))
        entry.ratio = 1.3
        let comparison = Comparison(
            baselineCreatedAt: nil, baselineEnvironment: nil, thresholdPercent: 5, alpha: 0.05,
            multipleComparisonControl: "holm", entries: [entry])
        let attached = FunctionGrowth.attachTime(
            to: comparison, baseline: GateFixtures.report([base]), current: GateFixtures.report([new]))
        let differential = try #require(attached.entries.first?.timeDifferential)
        #expect(differential.grown.first?.name == "drainChecksumStep")

        let text = ComparisonText.render(attached)
        #expect(text.contains("drainChecksumStep +300 ns/op sampled"), "\(text)")
        let markdown = GateSummary.markdown(attached, title: "t")
        #expect(markdown.contains("- `drainChecksumStep` +300 ns/op sampled"), "\(markdown)")

        var report = GateFixtures.report([new])
        report.comparison = attached
        let decoded = try ReportCoding.decoder().decode(Report.self, from: ReportCoding.encode(report))
        #expect(decoded == report)
        #expect(decoded.benchmarks.first?.timeProfile?.samples == 650)
    }
}
