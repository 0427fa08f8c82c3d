import Foundation
import PerfReport
import Testing

@testable import Harness

@Suite struct ProcessFactorsTests {
    static func report(_ levels: [String: [Double]]) -> Report {
        Synthetic.report(
            levels.keys.sorted().map { ProcessLevelComparisonTests.result($0, levels: levels[$0]!, seed: 11) })
    }

    @Test func perProcessMediansAndSpreadAreRecorded() throws {
        var report = Self.report(["s/g/a": [100, 102, 101]])
        ProcessFactors.annotate(&report, defaultThresholdPercent: 5, deterministicHashing: false)
        let spread = try #require(report.benchmarks[0].processSpread)
        #expect(spread.processes == 3)
        #expect(zip(spread.wallMedians, [100.0, 102, 101]).allSatisfy { abs($0 - $1) < 1 })
        #expect(spread.spreadPercent < 5)
        #expect(spread.likelyCause == nil)
        #expect(!report.benchmarks[0].warnings.contains { $0.rule == "process-spread-above-threshold" })
    }

    @Test func oneBenchmarkAloneIsBlamedOnItsHashSeedOrLayout() throws {
        var report = Self.report([
            "s/g/a": [100, 100, 100], "s/g/b": [50, 50.5, 50], "s/g/hashed": [100, 118, 104],
        ])
        ProcessFactors.annotate(&report, defaultThresholdPercent: 5, deterministicHashing: false)
        let hashed = try #require(report.benchmarks.first { $0.id == "s/g/hashed" })
        let warning = try #require(hashed.warnings.first { $0.rule == "process-spread-above-threshold" })
        #expect(warning.message.contains("medians of 3 processes lie"))
        #expect(warning.message.contains("SWIFT_DETERMINISTIC_HASHING=1 tells"))
        #expect(hashed.processSpread?.likelyCause?.hasPrefix("this benchmark alone") == true)

        var deterministic = Self.report(["s/g/a": [100, 100, 100], "s/g/b": [50, 50, 50], "s/g/c": [100, 118, 104]])
        ProcessFactors.annotate(&deterministic, defaultThresholdPercent: 5, deterministicHashing: true)
        #expect(deterministic.benchmarks[2].processSpread?.likelyCause?.contains("with hashing deterministic") == true)
    }

    @Test func everyBenchmarkMovingTogetherIsTheMachine() throws {
        var report = Self.report(["s/g/a": [100, 125, 101], "s/g/b": [50, 62, 50.5], "s/g/c": [10, 12.6, 10]])
        ProcessFactors.annotate(&report, defaultThresholdPercent: 5, deterministicHashing: false)
        for result in report.benchmarks {
            #expect(result.processSpread?.likelyCause?.hasPrefix("the machine") == true)
        }
    }

    @Test func twoBenchmarksCannotTellTheMachineFromTheBenchmark() throws {
        var report = Self.report(["s/g/a": [100, 130, 101], "s/g/b": [50, 66, 50]])
        ProcessFactors.annotate(&report, defaultThresholdPercent: 5, deterministicHashing: false)
        let cause = try #require(report.benchmarks[0].processSpread?.likelyCause)
        #expect(cause.hasPrefix("the machine or this benchmark, which fewer than three benchmarks cannot tell apart"))
    }

    /// Issue #51: each process's machine factor from the other benchmarks in it, and the spread left
    /// once it is divided out, beside the raw spread.
    @Test func theCommonFactorsAndTheRelativeSpreadAreRecorded() throws {
        let machine = [1.0, 1.3, 1.0, 1.3]
        let own: [String: [Double]] = [
            "s/g/a": [100, 101, 99, 100], "s/g/b": [50, 50.5, 50, 49.5], "s/g/c": [10, 10.1, 9.9, 10],
            "s/g/d": [200, 198, 202, 200],
        ]
        var report = Self.report(own.mapValues { zip($0, machine).map { $0 * $1 } })
        ProcessFactors.annotate(&report, defaultThresholdPercent: 5, deterministicHashing: false)
        for result in report.benchmarks {
            let spread = try #require(result.processSpread)
            #expect(spread.spreadPercent > 25)
            let factors = try #require(spread.commonFactors)
            #expect(factors.count == 4)
            #expect(abs(factors[1] / factors[0] - 1.3) < 0.03)
            #expect(try #require(spread.relativeSpreadPercent) < 5, "\(result.id): \(spread)")
        }

        // Three benchmarks leave two others per process: no factor.
        var few = Self.report(["s/g/a": [100, 130], "s/g/b": [50, 65], "s/g/c": [10, 13]])
        ProcessFactors.annotate(&few, defaultThresholdPercent: 5, deterministicHashing: false)
        #expect(few.benchmarks.allSatisfy { $0.processSpread?.commonFactors == nil })
    }

    /// A comparison made on relative levels, with its caveat, validates against the committed schema.
    @Test func aNormalisedComparisonValidatesAgainstTheSchema() throws {
        let levels: [String: [Double]] = [
            "s/g/a": [100, 130, 101], "s/g/b": [50, 65, 50], "s/g/c": [10, 13, 10], "s/g/d": [20, 26, 20],
        ]
        var report = Self.report(levels)
        ProcessFactors.annotate(&report, defaultThresholdPercent: 5, deterministicHashing: false)
        let gate = RegressionGate()
        report.comparison = gate.decide(baseline: report, current: report).comparison
        report.comparison?.caveats = [.singleProcess(sides: [.baseline])]
        #expect(report.comparison?.entries.allSatisfy { $0.reason.processLevels != nil } == true)
        let object = try JSONSerialization.jsonObject(with: try ReportCoding.encode(report))
        #expect(try JSONSchemaValidator(schemaURL: ReportSchemaTests.schemaURL).validate(object) == [])
    }

    @Test func aDeclaredThresholdWins() {
        var report = Synthetic.report([
            { () -> BenchmarkResult in
                var result = ProcessLevelComparisonTests.result("s/g/a", levels: [100, 112], seed: 5)
                result.thresholdPercent = 25
                return result
            }()
        ])
        ProcessFactors.annotate(&report, defaultThresholdPercent: 5, deterministicHashing: false)
        #expect((report.benchmarks[0].processSpread?.spreadPercent ?? 0) > 10)
        #expect(report.benchmarks[0].warnings.allSatisfy { $0.rule != "process-spread-above-threshold" })
    }
}
