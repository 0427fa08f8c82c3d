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
        #expect(error.description == "old.json: schemaVersion 99 is not supported (this perfkit reads 1)")
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
