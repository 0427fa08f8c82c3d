import Foundation
import PerfReport
import Testing

/// `merge`: what the `swift package perfkit` plugin runs to make one report of several
/// benchmark executables' reports.
extension CommandLineTests {
    @Test func mergeWritesOneReportOfBothAndGatesIt() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = directory.appendingPathComponent("first.json")
        let second = directory.appendingPathComponent("second.json")
        try writeReport(noisy(around: 100), id: "A/g/x", to: first)
        try writeReport(noisy(around: 120), id: "B/g/y", to: second)
        let output = directory.appendingPathComponent("out")

        let merged = try perfkit(["merge", first.path, second.path, "--output", output.path, "--format", "json,html"])
        #expect(merged.status == 0, "\(merged.stderr)")
        let written = try #require(try reports(in: output).first)
        let report = try ReportCoding.load(from: written)
        #expect(report.benchmarks.map(\.id) == ["A/g/x", "B/g/y"])
        #expect(
            FileManager.default.fileExists(
                atPath: written.deletingLastPathComponent().appendingPathComponent("report.html").path))

        // Gated as one report: B/g/y is 20% slower than in this baseline.
        let baseline = directory.appendingPathComponent("baseline.json")
        try writeReport(noisy(around: 100), id: "B/g/y", to: baseline)
        let gated = try perfkit([
            "merge", first.path, second.path, "--output", output.path, "--baseline", baseline.path,
        ])
        #expect(gated.status == 2)
        #expect(gated.stdout.contains("B/g/y"))
    }

    @Test func mergeIntoOneFileAndRefusesDuplicates() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = directory.appendingPathComponent("first.json")
        let second = directory.appendingPathComponent("second.json")
        try writeReport(noisy(around: 100), id: "A/g/x", to: first)
        try writeReport(noisy(around: 100), id: "B/g/y", to: second)
        let into = directory.appendingPathComponent("baseline.json")

        let merged = try perfkit(["merge", first.path, second.path, "--into", into.path])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(try ReportCoding.load(from: into).benchmarks.count == 2)

        let output = directory.appendingPathComponent("out")
        let duplicate = try perfkit(["merge", first.path, first.path, "--output", output.path])
        #expect(duplicate.status == 1)
        #expect(duplicate.stderr.contains("A/g/x"))
        #expect(duplicate.stderr.split(separator: "\n").count == 1)
        // Refused before anything was written.
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }
}

/// Commands made of other commands refuse a filter that selects nothing before starting anything.
extension CommandLineTests {
    @Test func baselineAndCIRefuseAnEmptyFilterUpFront() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let baseline = directory.appendingPathComponent("baseline.json")
        let update = try perfkit([
            "baseline", "update", "--allow-ci", "--filter", "no-such-benchmark", "--output", baseline.path,
        ])
        #expect(update.status == 1)
        #expect(
            update.stderr
                == "Error: --filter 'no-such-benchmark': matches no benchmark (the `list` command shows them all)\n")
        #expect(!FileManager.default.fileExists(atPath: baseline.path))

        let ci = try perfkit([
            "ci", "--baseline-binary", "/bin/true", "--filter", "no-such-benchmark", "--summary",
            directory.appendingPathComponent("summary.md").path,
        ])
        #expect(ci.status == 1)
        #expect(ci.stderr.split(separator: "\n").count == 1)
        #expect(ci.stderr.contains("matches no benchmark"))
    }
}
