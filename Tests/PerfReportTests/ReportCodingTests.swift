import Foundation
import Testing

@testable import PerfReport

@Suite struct ReportCodingTests {
    @Test func roundTripKeepsEverything() throws {
        let report = ReportFixtures.report()
        let data = try ReportCoding.encode(report)
        let decoded = try ReportCoding.decode(data, path: "r.json")
        #expect(decoded == report)
    }

    @Test func keysAreSortedAndDatesAreISO8601() throws {
        let data = try ReportCoding.encode(ReportFixtures.report())
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"createdAt\" : \"2026-11-22T04:00:00.000Z\""))
        let benchmarks = try #require(text.range(of: "\"benchmarks\""))
        let clock = try #require(text.range(of: "\"clock\""))
        let tool = try #require(text.range(of: "\"tool\""))
        #expect(benchmarks.lowerBound < clock.lowerBound)
        #expect(clock.lowerBound < tool.lowerBound)
    }

    @Test func malformedJSONNamesFileAndPosition() throws {
        let data = Data("{\n  \"schemaVersion\": 1,\n  oops\n}".utf8)
        let error = try #require(throws: ReportCoding.LoadError.self) {
            try ReportCoding.decode(data, path: "bad.json")
        }
        #expect(error.description.hasPrefix("bad.json: not valid JSON"))
        #expect(error.description.contains("(line 3, column 3)"))
        #expect(!error.description.contains("\n"))
    }

    @Test func wrongVersionIsRefusedByName() throws {
        let data = Data("{\"schemaVersion\": 99}".utf8)
        let error = try #require(throws: ReportCoding.LoadError.self) {
            try ReportCoding.decode(data, path: "old.json")
        }
        #expect(error.description == "old.json: schemaVersion 99 is not supported (this perfkit reads 1 to 2)")
    }

    /// Every kind of reason is saved beside its words and read back as it was.
    @Test func aComparisonsReasonsAreSavedAndReadBack() throws {
        typealias Reason = ComparisonReason
        let p = Reason.AdjustedPValue(0.001, tests: 3)
        let interval = ConfidenceInterval(lower: 1.1, upper: 1.3, level: 0.95)
        let reasons = [
            Reason(
                .tested(
                    ratio: 1.2, interval: interval, processes: Reason.PerSide(baseline: 10, current: 3), pValue: p,
                    outcome: .regressed),
                substitution: .busyMachine(
                    onCPU: Reason.PerSide(baseline: 1, current: 0.5),
                    switchesPerSecond: Reason.PerSide(baseline: 2, current: 120)),
                reviews: [
                    .withinSharedSlowdown(otherBenchmarks: 3, medianRatio: 1.1, relativeRatio: 1.01),
                    .rerunConfirmed(firstRatio: 1.2), .rerunDidNotConfirm(firstRatio: nil), .rerunMissing,
                    .machineMoved(processes: 2, of: 3, lowest: 1.16, highest: 1.6, boundPercent: 15),
                    .processesLeftOut(processes: 1, of: 3, lowest: 1.61, highest: 1.61, boundPercent: 15),
                ]),
            Reason(.counted(baseline: 1, current: 1.2, ratio: 1.2, outcome: .belowMinimumDifference(0.5))),
            Reason(.onlyInBaseline, substitution: .notMeasured(.instructions)),
            Reason(.noSamples(in: .current), reviews: [.busyMachineInconclusive]),
            Reason(
                .tested(
                    ratio: 1.06, interval: interval, processes: Reason.PerSide(baseline: 10, current: 9), pValue: p,
                    outcome: .regressed),
                reviews: [
                    .moreProcesses(
                        firstProcesses: Reason.PerSide(baseline: 10, current: 3), addedProcesses: 6, looks: 3,
                        interleaved: false, decided: true)
                ]),
            Reason(.ratioUndefined(baselineMedian: 0, pValue: p)),
            Reason(.worded("old words")),
        ]
        var report = ReportFixtures.report()
        var comparison = Comparison(
            baselineCreatedAt: nil, baselineEnvironment: nil, thresholdPercent: 5, alpha: 0.05,
            multipleComparisonControl: "holm", entries: [])
        comparison.entries = reasons.enumerated().map { index, reason in
            ComparisonEntry(
                id: "S/g/\(index)", metric: .wallTime, thresholdPercent: 5, verdict: .regressed, reason: reason)
        }
        report.comparison = comparison
        let data = try ReportCoding.encode(report)
        let decoded = try ReportCoding.decode(data, path: "r.json")
        #expect(decoded.comparison?.entries.map(\.reason) == reasons)
        let object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let entries = (object["comparison"] as! [String: Any])["entries"] as! [[String: Any]]
        #expect(entries.map { $0["explanation"] as? String } == comparison.entries.map(\.explanation))
        #expect(entries[1]["reason"].map { "\($0)" }?.contains("perOperation") == true)
    }

    /// A report of schema version 1 saved a comparison's words only: it loads, as the current
    /// version, with those words as each entry's reason.
    @Test func aSchemaOneReportLoadsWithItsWords() throws {
        var report = ReportFixtures.report()
        report.comparison = Comparison(
            baselineCreatedAt: nil, baselineEnvironment: nil, thresholdPercent: 5, alpha: 0.05,
            multipleComparisonControl: "holm",
            entries: [
                ComparisonEntry(
                    id: "S/g/a", metric: .wallTime, thresholdPercent: 5, verdict: .regressed,
                    reason: ComparisonReason(.onlyInCurrentRun))
            ])
        var object = try JSONSerialization.jsonObject(with: try ReportCoding.encode(report)) as! [String: Any]
        object["schemaVersion"] = 1
        var comparison = object["comparison"] as! [String: Any]
        var entries = comparison["entries"] as! [[String: Any]]
        entries[0].removeValue(forKey: "reason")
        entries[0]["explanation"] = "12.0% slower: regressed, as an old perfkit said it"
        comparison["entries"] = entries
        object["comparison"] = comparison
        let decoded = try ReportCoding.decode(try JSONSerialization.data(withJSONObject: object), path: "old.json")
        #expect(decoded.schemaVersion == Report.currentSchemaVersion)
        let entry = try #require(decoded.comparison?.entries.first)
        #expect(entry.reason == ComparisonReason(.worded("12.0% slower: regressed, as an old perfkit said it")))
        #expect(entry.explanation == "12.0% slower: regressed, as an old perfkit said it")
    }

    @Test func reportsFromBeforeRoundsReadAsOneRound() throws {
        var report = ReportFixtures.report()
        report.settings.rounds = 4
        var object = try JSONSerialization.jsonObject(with: try ReportCoding.encode(report)) as! [String: Any]
        var settings = object["settings"] as! [String: Any]
        #expect(settings["rounds"] as? Int == 4)
        settings.removeValue(forKey: "rounds")
        object["settings"] = settings
        let decoded = try ReportCoding.decode(try JSONSerialization.data(withJSONObject: object), path: "old.json")
        #expect(decoded.settings.rounds == 1)
    }

    @Test func missingFieldSaysWhere() throws {
        var object =
            try JSONSerialization.jsonObject(with: try ReportCoding.encode(ReportFixtures.report()))
            as! [String: Any]
        var benchmarks = object["benchmarks"] as! [[String: Any]]
        benchmarks[0].removeValue(forKey: "wallTime")
        object["benchmarks"] = benchmarks
        let data = try JSONSerialization.data(withJSONObject: object)
        let error = try #require(throws: ReportCoding.LoadError.self) {
            try ReportCoding.decode(data, path: "cut.json")
        }
        #expect(error.description.contains("benchmarks[0]"))
        #expect(error.description.contains("wallTime"))
    }

    @Test func unreadablePathsAreNamed() throws {
        let missing = try #require(throws: ReportCoding.LoadError.self) {
            try ReportCoding.load(from: URL(fileURLWithPath: "/nonexistent/report.json"))
        }
        #expect(missing.description == "/nonexistent/report.json: cannot read: no such file")
        let directory = try #require(throws: ReportCoding.LoadError.self) {
            try ReportCoding.load(from: URL(fileURLWithPath: NSTemporaryDirectory()))
        }
        #expect(directory.description.hasSuffix("cannot read: is a directory"))
    }
}
