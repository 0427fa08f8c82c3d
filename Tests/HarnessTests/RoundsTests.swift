import Foundation
import Testing

@testable import Harness
@testable import PerfReport

/// A run of several rounds spreads each interleaved benchmark's samples over them.
@Suite struct RoundsTests {
    static let threeRounds = RunConfiguration(
        samples: 6, minimumSamples: 3, timeBudgetSeconds: 0.05, warmupSeconds: 0.002,
        minimumSampleNanoseconds: 200_000, rounds: 3)

    func run(
        _ suite: BenchmarkSuite, configuration: RunConfiguration = threeRounds,
        shouldStop: @escaping () -> Bool = { false }
    ) throws -> (Report, [BenchmarkSession.Progress]) {
        let session = BenchmarkSession(
            selection: try BenchmarkSelection(filter: nil, suites: [suite]), configuration: configuration,
            settings: TestSuites.settings(configuration), buildConfiguration: "release")
        var progress: [BenchmarkSession.Progress] = []
        let report = session.run(shouldStop: shouldStop) { progress.append($0) }
        return (report, progress)
    }

    @Test func visitsShareTheSamplesBudgetAndWarmUp() {
        let configuration = RunConfiguration(
            samples: 7, minimumSamples: 5, timeBudgetSeconds: 0.9, warmupSeconds: 0.3, rounds: 3)
        let visits = (0..<3).map { configuration.visit(round: $0, of: 3) }
        #expect(visits.map(\.samples) == [3, 2, 2])
        #expect(visits.map(\.minimumSamples) == [2, 2, 2])
        #expect(visits.allSatisfy { abs($0.timeBudgetSeconds - 0.3) < 1e-12 })
        #expect(zip(visits.map(\.warmupSeconds), [0.3, 0.1, 0.1]).allSatisfy { abs($0 - $1) < 1e-12 })
        #expect(
            configuration.visit(round: 0, of: 1)
                == RunConfiguration.Visit(samples: 7, minimumSamples: 5, timeBudgetSeconds: 0.9, warmupSeconds: 0.3))
    }

    @Test func eachRoundVisitsEveryInterleavedCaseWithAFreshInstance() throws {
        let recorder = TestSuites.Recorder()
        let (report, progress) = try run(TestSuites.suite(recorder: recorder))
        #expect(report.complete)
        #expect(report.settings.rounds == 3)
        // Round after round, not benchmark after benchmark.
        let oneRound = ["setup 16", "teardown 16", "setup 256", "teardown 256"]
        #expect(recorder.all == oneRound + oneRound + oneRound)
        #expect(report.benchmarks.map(\.id) == ["Test/spin/10us", "Test/sized/sum[16]", "Test/sized/sum[256]"])
        for result in report.benchmarks {
            // At least the per-round minimum in every round, at most the asked-for total.
            #expect(result.samples.count >= 3 && result.samples.count <= 6)
            // Calibrated once: every round uses the first round's iteration count.
            #expect(Set(result.samples.map(\.iterations)).count == 1)
            #expect(result.claim?.evidence == "analysed")
        }
        #expect(progress.dropLast().map(\.round) == [1, 1, 1, 2, 2, 2, 3, 3, 3])
        #expect(progress.dropLast().map(\.index) == Array(0..<9))
        #expect(progress.allSatisfy { $0.total == 9 && $0.rounds == 3 })
    }

    @Test func aOneVisitCaseKeepsOneInstanceForAllItsSamples() throws {
        let recorder = TestSuites.Recorder()
        final class Counting: BenchmarkInstance {
            let recorder: TestSuites.Recorder
            var runs = 0
            init(_ recorder: TestSuites.Recorder) {
                self.recorder = recorder
                recorder.record("instance")
            }
            func run(iterations: Int) {
                runs += 1
                TestSuites.spin(nanoseconds: 1_000, iterations: iterations)
            }
            var counters: [String: Double] { ["runs": Double(runs)] }
        }
        let suite = BenchmarkSuite(
            name: "Test",
            benchmarks: [
                Benchmark("Test/once/counting", scheduling: .oneVisit) { _ in Counting(recorder) },
                Benchmark("Test/spread/spin") { n in TestSuites.spin(nanoseconds: 1_000, iterations: n) },
            ])
        let (report, progress) = try run(suite)
        #expect(recorder.all == ["instance"])
        let once = try #require(report.benchmarks.first { $0.id == "Test/once/counting" })
        #expect(once.samples.count >= 3 && once.samples.count <= 6)
        // Its counters saw every sample (plus calibration and warm-up runs) of the one instance.
        #expect(try #require(once.counters["runs"]) > Double(once.samples.count))
        #expect(
            progress.dropLast().map(\.id) == [
                "Test/once/counting", "Test/spread/spin", "Test/spread/spin", "Test/spread/spin",
            ])
    }

    @Test func interruptionInALaterRoundKeepsTheSamplesOfEarlierRounds() throws {
        let recorder = TestSuites.Recorder()
        let (report, _) = try run(
            TestSuites.suite(recorder: recorder),
            shouldStop: { recorder.all.filter { $0 == "teardown 16" }.count == 2 })
        #expect(!report.complete)
        #expect(
            report.incompleteReason == "interrupted in round 2 of 3: results hold the samples of the rounds that ran")
        #expect(report.benchmarks.count == 3)
        #expect(recorder.all.filter { $0 == "setup 256" }.count == 1)
    }

    @Test func everySampleCasesStretchTheRunAndTheInterleavedOnesSpreadOverIt() {
        let plan = VisitPlan(
            schedulings: [.oneVisit, .interleaved, .everySampleAFreshVisit()], configuration: Self.threeRounds,
            oneVisitEach: false)
        #expect(plan.rounds == 6)
        let visited = (0..<3).map { index in (0..<plan.rounds).filter { plan.visit(case: index, round: $0) != nil } }
        #expect(visited == [[0], [0, 2, 4], [0, 1, 2, 3, 4, 5]])
        #expect((0..<6).map { plan.visit(case: 2, round: $0)!.samples } == [1, 1, 1, 1, 1, 1])
        #expect([0, 2, 4].map { plan.visit(case: 1, round: $0)!.samples } == [2, 2, 2])
        #expect(plan.visit(case: 0, round: 0)!.samples == 6)
        #expect(plan.visit(case: 2, round: 6) == nil)
    }

    @Test func aSampleFactorMultipliesTheVisitsAndTheBudget() {
        let plan = VisitPlan(
            schedulings: [.interleaved, .everySampleAFreshVisit(sampleFactor: 2)], configuration: Self.threeRounds,
            oneVisitEach: false)
        #expect(plan.rounds == 12)
        #expect((0..<12).filter { plan.visit(case: 0, round: $0) != nil } == [0, 4, 8])
        let visits = (0..<12).compactMap { plan.visit(case: 1, round: $0) }
        #expect(visits.count == 12)
        #expect(visits.allSatisfy { $0.samples == 1 && $0.minimumSamples == 1 })
        // Each visit gets one sample's share of the configured budget, however many samples there are.
        #expect(visits.allSatisfy { abs($0.timeBudgetSeconds - Self.threeRounds.timeBudgetSeconds / 6) < 1e-12 })
    }

    @Test func aQuickRunStopsEverySampleCasesAtItsMaximumVisits() {
        var capped = Self.threeRounds
        capped.maximumFreshVisits = 8
        let plan = VisitPlan(
            schedulings: [.interleaved, .everySampleAFreshVisit(sampleFactor: 2), .everySampleAFreshVisit()],
            configuration: capped, oneVisitEach: false)
        #expect(plan.rounds == 8)
        let visits = (0..<8).compactMap { plan.visit(case: 1, round: $0) }
        #expect(visits.count == 8)
        // The samples stop at the maximum; each keeps one configured sample's share of the budget.
        #expect(visits.allSatisfy { abs($0.timeBudgetSeconds - Self.threeRounds.timeBudgetSeconds / 6) < 1e-12 })
        #expect((0..<8).compactMap { plan.visit(case: 2, round: $0) }.count == 6)
        #expect(RunConfiguration.quick.maximumFreshVisits == 20)
        #expect(RunConfiguration().maximumFreshVisits == nil)
    }

    @Test func withoutEverySampleCasesTheRunKeepsItsRoundsAndCallgrindVisitsOnce() {
        let plain = VisitPlan(
            schedulings: [.oneVisit, .interleaved], configuration: Self.threeRounds, oneVisitEach: false)
        #expect(plain.rounds == 3)
        #expect((0..<3).allSatisfy { plain.visit(case: 1, round: $0)?.samples == 2 })
        let callgrind = VisitPlan(
            schedulings: [.interleaved, .everySampleAFreshVisit(sampleFactor: 2)], configuration: Self.threeRounds,
            oneVisitEach: true)
        #expect(callgrind.rounds == 1)
        #expect(callgrind.visit(case: 1, round: 0)?.samples == 6)
        #expect(callgrind.visit(case: 0, round: 0)?.samples == 6)
    }

    @Test func anEverySampleCaseMakesAFreshInstanceForEachSample() throws {
        let recorder = TestSuites.Recorder()
        final class Fresh: BenchmarkInstance {
            init(_ recorder: TestSuites.Recorder) { recorder.record("instance") }
            func run(iterations: Int) { TestSuites.spin(nanoseconds: 1_000, iterations: iterations) }
        }
        let suite = BenchmarkSuite(
            name: "Test",
            benchmarks: [
                Benchmark("Test/fresh/spin", scheduling: .everySampleAFreshVisit()) { _ in Fresh(recorder) },
                Benchmark("Test/spread/spin") { n in TestSuites.spin(nanoseconds: 1_000, iterations: n) },
            ])
        let (report, progress) = try run(suite)
        #expect(report.complete)
        #expect(report.settings.rounds == 6)
        let fresh = try #require(report.benchmarks.first { $0.id == "Test/fresh/spin" })
        #expect(fresh.samples.count == 6)
        #expect(recorder.all == Array(repeating: "instance", count: 6))
        #expect(
            progress.dropLast().map(\.id) == [
                "Test/fresh/spin", "Test/spread/spin", "Test/fresh/spin", "Test/fresh/spin", "Test/spread/spin",
                "Test/fresh/spin", "Test/fresh/spin", "Test/spread/spin", "Test/fresh/spin",
            ])
        let spread = try #require(report.benchmarks.first { $0.id == "Test/spread/spin" })
        #expect(spread.samples.count >= 3 && spread.samples.count <= 6)
    }

    /// Benchmarks of one group compared at the same parameter are measured a visit apart in each
    /// round, and every sample says which round took it, so that they can be paired.
    @Test func aGroupIsVisitedParameterByParameterAndSamplesKnowTheirRound() throws {
        let fresh = Benchmark.Scheduling.everySampleAFreshVisit()
        func spin(_ path: String) -> Benchmark {
            Benchmark(
                path, parameters: [1, 2], scheduling: fresh, setup: { $0 },
                body: { _, n in TestSuites.spin(nanoseconds: 1_000, iterations: n) })
        }
        let suite = BenchmarkSuite(
            name: "Test", benchmarks: [spin("Test/locks/a"), spin("Test/locks/b"), spin("Test/other/c")])
        let (report, progress) = try run(suite)
        #expect(report.complete)
        #expect(report.settings.rounds == 6)
        let oneRound = [
            "Test/locks/a[1]", "Test/locks/b[1]", "Test/locks/a[2]", "Test/locks/b[2]", "Test/other/c[1]",
            "Test/other/c[2]",
        ]
        #expect(progress.dropLast().map(\.id) == Array(repeating: oneRound, count: 6).flatMap { $0 })
        // The report keeps the benchmarks' own order.
        #expect(report.benchmarks.map(\.id).first == "Test/locks/a[1]")
        #expect(report.benchmarks.map(\.id)[1] == "Test/locks/a[2]")
        for result in report.benchmarks {
            #expect(result.samples.map(\.round) == Array(0..<6))
        }
    }
}
