import Foundation
import Testing

@testable import Harness
@testable import PerfReport

/// The default run stops a benchmark once its answer is clear, and keeps what an open answer needs.
@Suite struct SequentialStoppingTests {
    /// Fresh-visit benchmarks capped at 12 visits, looked at after rounds 4 and 8.
    static let stopping = RunConfiguration(
        samples: 6, minimumSamples: 3, timeBudgetSeconds: 0.05, warmupSeconds: 0.002,
        minimumSampleNanoseconds: 200_000, rounds: 3, maximumFreshVisits: 12,
        stopping: SequentialStopping(looks: [4, 8], minimumVisits: 2))

    func run(_ suite: BenchmarkSuite, configuration: RunConfiguration = stopping) throws -> Report {
        let session = BenchmarkSession(
            selection: try BenchmarkSelection(filter: nil, suites: [suite]), configuration: configuration,
            settings: TestSuites.settings(configuration), buildConfiguration: "release")
        return session.run()
    }

    /// Three fresh-visit cases: `a` compared with `base`, `c` compared with nothing. The claims'
    /// verdicts come from `verdicts` (by name, given the samples so far); the levels the analysis
    /// ran at are recorded.
    static func claimSuite(
        levels: TestSuites.Recorder = TestSuites.Recorder(),
        verdicts: @escaping @Sendable (_ name: String, _ samples: Int) -> Claim.Verdict
    ) -> BenchmarkSuite {
        func fresh(_ name: String) -> Benchmark {
            Benchmark("Claims/fresh/\(name)", scheduling: .everySampleAFreshVisit(sampleFactor: 4)) { _ in
                ClosureInstanceForTests()
            }
        }
        return BenchmarkSuite(
            name: "Claims", benchmarks: [fresh("a"), fresh("base"), fresh("c")],
            analyze: { results in
                levels.record("\(DecisionLevel.current)")
                let ids = Dictionary(uniqueKeysWithValues: results.map { ($0.name, $0.id) })
                for index in results.indices {
                    let name = results[index].name
                    results[index].claim = Claim(
                        statement: name, verdict: verdicts(name, results[index].samples.count), evidence: "",
                        comparedWith: name == "a" ? ids["base"].map { [$0] } : nil)
                }
            })
    }

    @Test func decidedClaimsStopAtTheFirstLookAndTheRunDecidesAtTheFinalLevel() throws {
        let levels = TestSuites.Recorder()
        let report = try run(Self.claimSuite(levels: levels) { _, _ in .held })
        for result in report.benchmarks { #expect(result.samples.count == 4, "\(result.id)") }
        // One look (after round 4), then the run's own analysis at its level.
        #expect(levels.all == ["\(DecisionLevel.interim)", "\(DecisionLevel.final)"])
    }

    @Test func anOpenClaimKeepsItsCaseAndTheCaseItIsComparedWithUntilTheCap() throws {
        let report = try run(Self.claimSuite { name, _ in name == "a" ? .inconclusive : .held })
        let samples = Dictionary(uniqueKeysWithValues: report.benchmarks.map { ($0.name, $0.samples.count) })
        // `base`'s own claim held, but `a` still needs it side by side.
        #expect(samples == ["a": 12, "base": 12, "c": 4])
        // They stayed paired: every round of `a` has a sample of `base`.
        let rounds = { (name: String) in Set(report.benchmarks.first { $0.name == name }!.samples.compactMap(\.round)) }
        #expect(rounds("a") == rounds("base"))
    }

    @Test func aClaimDecidedAtALaterLookStopsThere() throws {
        let report = try run(Self.claimSuite { name, samples in name == "c" && samples < 8 ? .inconclusive : .held })
        let samples = Dictionary(uniqueKeysWithValues: report.benchmarks.map { ($0.name, $0.samples.count) })
        #expect(samples == ["a": 4, "base": 4, "c": 8])
    }

    @Test func withoutStoppingEveryCaseTakesAllItsSamples() throws {
        var configuration = Self.stopping
        configuration.stopping = nil
        let report = try run(Self.claimSuite { _, _ in .held }, configuration: configuration)
        #expect(report.benchmarks.allSatisfy { $0.samples.count == 12 })
    }

    @Test func aPreciseBenchmarkWithoutClaimsStopsAfterItsMinimumVisits() throws {
        // Wall times are noisy here, so precision is set by the rule's width rather than by the body:
        // any median is "within ±1000%", none is "within ±0%".
        let plain = BenchmarkSuite(
            name: "Plain",
            benchmarks: [Benchmark("Plain/spin/20us") { n in TestSuites.spin(nanoseconds: 20_000, iterations: n) }])
        func visits(_ suite: BenchmarkSuite, relativeError: Double) throws -> Int {
            var configuration = Self.stopping
            configuration.stopping?.relativeError = relativeError
            let result = try #require(try run(suite, configuration: configuration).benchmarks.first)
            return Set(result.samples.compactMap(\.round)).count
        }
        #expect(try visits(plain, relativeError: 10) == 2)
        #expect(try visits(plain, relativeError: 0) == 3)
        // In a suite that judges claims on all its samples, a precise median does not stop it.
        var analysed = plain
        analysed.analyze = { _ in }
        #expect(try visits(analysed, relativeError: 10) == 3)
    }

    @Test func openIDsAreInconclusiveClaimsTheirBaselinesAndImpreciseMedians() {
        let stopping = SequentialStopping(looks: [1])
        func result(_ id: String, claim: Claim?, median: Double = 100, halfWidth: Double = 0.5) -> BenchmarkResult {
            var result = BenchmarkResult(
                id: id, suite: "S", group: "g", name: id, samples: [],
                wallTime: Statistics(
                    count: 10, min: median, max: median, mean: median, median: median, standardDeviation: 0,
                    coefficientOfVariation: 0, medianAbsoluteDeviation: 0, p90: median, p99: median,
                    medianConfidenceInterval: ConfidenceInterval(
                        lower: median - halfWidth, upper: median + halfWidth, level: 0.95),
                    outliers: OutlierCounts()))
            result.claim = claim
            return result
        }
        let open = stopping.openIDs(of: [
            result("held", claim: Claim(statement: "", verdict: .held, evidence: "", comparedWith: ["base1"])),
            result("open", claim: Claim(statement: "", verdict: .inconclusive, evidence: "", comparedWith: ["base2"])),
            result("base1", claim: nil),
            result("base2", claim: Claim(statement: "", verdict: .didNotHold, evidence: "")),
            result("wide", claim: nil, halfWidth: 2),
        ])
        #expect(open == ["open", "base2", "wide"])
    }

    @Test func aMedianIsPreciseOnlyWhenItsVisitsAgree() {
        let stopping = SequentialStopping(looks: [1])
        // Two visits of five samples: 100 ns each in the first, `second` ns each in the second.
        func result(second: Double) -> BenchmarkResult {
            let samples = (0..<10).map { index in
                Sample(iterations: 1, wallNanoseconds: index < 5 ? 100 : second, round: index < 5 ? 0 : 1)
            }
            return BenchmarkResult(
                id: "a", suite: "S", group: "g", name: "a", samples: samples,
                wallTime: Statistics(
                    count: 10, min: 100, max: 100, mean: 100, median: 100, standardDeviation: 0,
                    coefficientOfVariation: 0, medianAbsoluteDeviation: 0, p90: 100, p99: 100,
                    medianConfidenceInterval: ConfidenceInterval(lower: 99.5, upper: 100.5, level: 0.95),
                    outliers: OutlierCounts()))
        }
        #expect(stopping.isPrecise(result(second: 100.5)))
        // The interval is as narrow, but the second visit's instance runs 3% slower.
        #expect(!stopping.isPrecise(result(second: 103)))
    }
}

/// An instance whose runs cost a few microseconds.
final class ClosureInstanceForTests: BenchmarkInstance {
    func run(iterations: Int) { TestSuites.spin(nanoseconds: 2_000, iterations: iterations) }
}
