import Foundation
import Testing

@testable import Harness
@testable import PerfReport

@Suite struct BenchmarkSessionTests {
    func runSession(
        filter: String? = nil, recorder: TestSuites.Recorder = TestSuites.Recorder(),
        shouldStop: @escaping () -> Bool = { false }
    ) throws -> Report {
        let selection = try BenchmarkSelection(filter: filter, suites: [TestSuites.suite(recorder: recorder)])
        let session = BenchmarkSession(
            selection: selection, configuration: TestSuites.fast, settings: TestSuites.settings(TestSuites.fast),
            buildConfiguration: "debug")
        return session.run(shouldStop: shouldStop)
    }

    @Test func runsEveryCaseWithSetupOutsideAndAnalysisAfter() throws {
        let report = try runSession()
        #expect(report.benchmarks.map(\.id) == ["Test/spin/10us", "Test/sized/sum[16]", "Test/sized/sum[256]"])
        #expect(report.complete)
        for result in report.benchmarks {
            #expect(result.samples.count >= 3 && result.samples.count <= 6)
            #expect(result.wallTime.count == result.samples.count)
            #expect(result.claim?.evidence == "analysed")
            #expect(result.samples.allSatisfy { $0.cpuNanoseconds != nil && $0.voluntaryContextSwitches != nil })
        }
        let sized = try #require(report.benchmarks.first { $0.parameter == 256 })
        #expect(sized.throughput == .bytes(2048))
        #expect(report.schemaVersion == Report.currentSchemaVersion)
        #expect(report.environment.buildConfiguration == "debug")
        #expect(report.metrics.contains { $0.metric == .allocations && !$0.available && $0.reason != nil })
        #expect(report.metrics.contains { $0.metric == .instructions && ($0.available || $0.reason != nil) })
    }

    @Test func calibrationMakesEachSampleLastAtLeastTheTarget() throws {
        let report = try runSession(filter: "spin")
        let result = try #require(report.benchmarks.first)
        // A 10 µs body and a 200 µs target: at least 20 iterations per sample, and noise can
        // only make a sample longer, never shorter.
        #expect(result.samples.allSatisfy { $0.iterations >= 20 })
        #expect(result.samples.allSatisfy { $0.wallNanoseconds >= 200_000 * 0.95 })
        #expect(result.wallTime.min >= 10_000 * 0.95)
    }

    @Test func filterSelectsSingleParameters() throws {
        let report = try runSession(filter: #"sum\[16\]"#)
        #expect(report.benchmarks.map(\.id) == ["Test/sized/sum[16]"])
        #expect(report.settings.quick)
    }

    @Test func unknownFilterIsAnError() throws {
        let error = try #require(throws: BenchmarkSelection.InvalidFilter.self) {
            try BenchmarkSelection(filter: "nothing-matches", suites: [TestSuites.suite()])
        }
        #expect(error.problem == .matchesNoBenchmark)
        #expect(error.description == "filter 'nothing-matches': matches no benchmark")
    }

    @Test func interruptionKeepsFinishedBenchmarksAndMarksIncomplete() throws {
        // "Ctrl-C" arrives once the second case has been torn down: the third must not run.
        let recorder = TestSuites.Recorder()
        let report = try runSession(recorder: recorder, shouldStop: { recorder.all.contains("teardown 16") })
        #expect(!report.complete)
        #expect(report.incompleteReason == "interrupted after 2 of 3 benchmarks")
        #expect(report.benchmarks.map(\.id) == ["Test/spin/10us", "Test/sized/sum[16]"])
        #expect(report.benchmarks.allSatisfy { $0.claim != nil })
        #expect(!recorder.all.contains("setup 256"))
    }

    @Test func failingSetupIsReportedNotFatal() throws {
        struct Broken: Error, CustomStringConvertible { var description: String { "no input file" } }
        let suite = BenchmarkSuite(
            name: "Test",
            benchmarks: [
                Benchmark("Test/broken/setup", setup: { _ in throw Broken() }, body: { (_: Int, _) in }),
                Benchmark("Test/fine/empty") { _ in },
            ])
        let session = BenchmarkSession(
            selection: try BenchmarkSelection(filter: nil, suites: [suite]), configuration: TestSuites.fast,
            settings: TestSuites.settings(TestSuites.fast), buildConfiguration: "release")
        let report = session.run()
        #expect(report.benchmarks.map(\.id) == ["Test/fine/empty"])
        #expect(!report.complete)
        #expect(report.incompleteReason == "Test/broken/setup: setup failed: no input file")
    }

    @Test func clockOverheadIsMeasuredAndSmall() {
        let overhead = MonotonicClock.measureOverhead(batches: 20, readsPerBatch: 100)
        #expect(overhead > 0)
        // A clock read that takes a millisecond would make every sample meaningless.
        #expect(overhead < 1_000_000)
    }
}

@Suite struct ReportSchemaTests {
    static let schemaURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Schema/report.schema.json")

    @Test func aRealReportValidatesAgainstTheCommittedSchema() throws {
        let selection = try BenchmarkSelection(filter: nil, suites: [TestSuites.suite()])
        var report = BenchmarkSession(
            selection: selection, configuration: TestSuites.fast, settings: TestSuites.settings(TestSuites.fast),
            buildConfiguration: "release"
        ).run()
        report.comparison = Comparator().compare(baseline: report, current: report)
        let object = try JSONSerialization.jsonObject(with: try ReportCoding.encode(report))
        let validator = try JSONSchemaValidator(schemaURL: Self.schemaURL)
        #expect(validator.validate(object) == [])
    }

    @Test func theValidatorRejectsBrokenReports() throws {
        let selection = try BenchmarkSelection(filter: "spin", suites: [TestSuites.suite()])
        let report = BenchmarkSession(
            selection: selection, configuration: TestSuites.fast, settings: TestSuites.settings(TestSuites.fast),
            buildConfiguration: "release"
        ).run()
        var object = try JSONSerialization.jsonObject(with: try ReportCoding.encode(report)) as! [String: Any]
        object["schemaVersion"] = 99
        object["surprise"] = true
        var benchmarks = object["benchmarks"] as! [[String: Any]]
        benchmarks[0]["samples"] = "not an array"
        object["benchmarks"] = benchmarks
        let errors = try JSONSchemaValidator(schemaURL: Self.schemaURL).validate(object)
        #expect(errors.contains("$.schemaVersion: 99 is not one of [1, 2]"))
        #expect(errors.contains("$: unexpected property \"surprise\""))
        #expect(errors.contains("$.benchmarks[0].samples: expected array, found string"))
    }
}
