import Foundation
import Testing

@testable import PerfReport

/// Issue #51's fields (each process's machine factor, the levels a comparison stood on, the
/// single-process caveat) are saved and read back, and reports without them still load.
@Suite struct ProcessNormalisationCodingTests {
    typealias Reason = ComparisonReason

    static func report() -> Report {
        var report = ReportFixtures.report()
        report.benchmarks[0].processSpread = ProcessSpread(
            wallMedians: [100, 130, 101], cpuMedians: nil, spreadPercent: 30, likelyCause: "the machine",
            commonFactors: [0.9, 1.2, 0.9], relativeSpreadPercent: 2.5)
        let interval = ConfidenceInterval(lower: 1.05, upper: 1.15, level: 0.95)
        var comparison = Comparison(
            baselineCreatedAt: nil, baselineEnvironment: nil, thresholdPercent: 5, alpha: 0.05,
            multipleComparisonControl: "holm",
            entries: [
                ComparisonEntry(
                    id: "S/g/a", metric: .wallTime, thresholdPercent: 5, verdict: .regressed,
                    reason: Reason(
                        .tested(
                            ratio: 1.1, interval: interval, processes: Reason.PerSide(baseline: 3, current: 2),
                            pValue: Reason.AdjustedPValue(0.001, tests: 8), outcome: .regressed),
                        processLevels: .relative(
                            factors: Reason.PerSide(baseline: [0.9, 1.2, 0.9], current: [1.0, 1.31]),
                            rawInterval: ConfidenceInterval(lower: 0.9, upper: 1.4, level: 0.95), boundPercent: 15))),
                ComparisonEntry(
                    id: "S/g/b", metric: .wallTime, thresholdPercent: 5, verdict: .withinNoise,
                    reason: Reason(.processSpreadUnknown, processLevels: .raw(otherBenchmarks: 1, minimum: 3))),
            ])
        comparison.caveats = [.singleProcess(sides: [.current])]
        report.comparison = comparison
        return report
    }

    @Test func theFactorsAndTheCaveatAreSavedAndReadBack() throws {
        let report = Self.report()
        let decoded = try ReportCoding.decode(try ReportCoding.encode(report), path: "r.json")
        #expect(decoded == report)
        let entries = try #require(decoded.comparison?.entries)
        #expect(entries[0].explanation.contains("levels relative to the machine's factor in each process"))
        #expect(entries[0].explanation.contains("(raw levels: CI 0.900…1.400)"))
        #expect(
            entries[0].explanation.contains(
                "moved beyond ±15.0% in baseline process 2 ×1.200, this run's process 2 ×1.310"))
        #expect(entries[1].explanation.contains("raw process levels: only 1 other benchmark shared a process"))
    }

    /// A report of an older perfkit has none of the new fields: it loads, with them nil.
    @Test func reportsWithoutTheNewFieldsLoad() throws {
        var object = try JSONSerialization.jsonObject(with: try ReportCoding.encode(Self.report())) as! [String: Any]
        var benchmarks = object["benchmarks"] as! [[String: Any]]
        var spread = benchmarks[0]["processSpread"] as! [String: Any]
        spread.removeValue(forKey: "commonFactors")
        spread.removeValue(forKey: "relativeSpreadPercent")
        benchmarks[0]["processSpread"] = spread
        object["benchmarks"] = benchmarks
        var comparison = object["comparison"] as! [String: Any]
        comparison.removeValue(forKey: "caveats")
        var entries = comparison["entries"] as! [[String: Any]]
        for index in entries.indices {
            var reason = entries[index]["reason"] as! [String: Any]
            reason.removeValue(forKey: "processLevels")
            entries[index]["reason"] = reason
        }
        comparison["entries"] = entries
        object["comparison"] = comparison
        let decoded = try ReportCoding.decode(try JSONSerialization.data(withJSONObject: object), path: "old.json")
        #expect(decoded.benchmarks[0].processSpread?.commonFactors == nil)
        #expect(decoded.benchmarks[0].processSpread?.relativeSpreadPercent == nil)
        #expect(decoded.comparison?.caveats == nil)
        #expect(decoded.comparison?.entries.allSatisfy { $0.reason.processLevels == nil } == true)
    }

    /// The committed baseline (perfkit's own, and the example package's) still loads.
    @Test func theCommittedBaselinesLoad() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        for path in ["baseline.json", "Examples/benchmark-your-package/baseline.json"] {
            let report = try ReportCoding.load(from: root.appendingPathComponent(path))
            #expect(!report.benchmarks.isEmpty, "\(path)")
        }
    }

    @Test func theSingleProcessCaveatNamesTheSidesAndTheRemedy() {
        let both = ComparisonWording.caveat(.singleProcess(sides: [.baseline, .current]))
        #expect(both.hasPrefix("the baseline and this run were each measured in one process"))
        #expect(ComparisonWording.caveat(.singleProcess(sides: [.baseline])).hasPrefix("the baseline was measured"))
        let current = ComparisonWording.caveat(.singleProcess(sides: [.current]))
        #expect(current.hasPrefix("this run was measured in one process"))
        #expect(current.contains("cannot be told from a change"))
        #expect(current.contains("run --processes 10 for the baseline, --processes 3 for the candidate"))
        #expect(!current.contains("\n"))
    }
}
