import Foundation
import PerfReport
import Testing

/// `run --processes N` and the gate's third answer, "inconclusive: the machine was busy" (exit 3),
/// through the real executable.
@Suite struct ProcessesAndBusyMachineTests {
    let cli = CommandLineTests()

    @Test func runInSeveralProcessesRecordsEachProcesssMedian() throws {
        let directory = try cli.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try cli.perfkit([
            "run", "--allow-debug-build", "--quick", "--processes", "2", "--filter", "Harness/baseline/identity",
            "--output", directory.path, "--format", "json,html",
        ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("run: process 2 of 2"))
        let report = try ReportCoding.load(from: try #require(try cli.reports(in: directory).first))
        #expect(report.settings.processes == 2)
        let result = try #require(report.benchmarks.first)
        #expect(Set(result.samples.compactMap(\.process)) == [0, 1])
        #expect(result.samples.allSatisfy { $0.process != nil })
        let spread = try #require(result.processSpread)
        #expect(spread.wallMedians.count == 2)
        #expect(spread.cpuMedians?.count == 2)
        // A baseline of few benchmarks keeps its first process's time profiles without being asked.
        #expect(result.timeProfile != nil)
        #expect(outcome.stderr.contains("time profiles of the first process kept"), "\(outcome.stderr)")
        let unprofiled = try cli.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: unprofiled) }
        let skipped = try cli.perfkit([
            "run", "--allow-debug-build", "--quick", "--processes", "2", "--no-profile", "--filter",
            "Harness/baseline/identity", "--output", unprofiled.path, "--format", "json",
        ])
        #expect(skipped.status == 0, "\(skipped.stderr)")
        let plain = try ReportCoding.load(from: try #require(try cli.reports(in: unprofiled).first))
        #expect(plain.benchmarks.first?.timeProfile == nil)

        // Instruction counts do not differ between processes: refused before anything runs.
        let counted = try cli.perfkit([
            "run", "--allow-debug-build", "--processes", "3", "--instructions", "--output", directory.path,
        ])
        #expect(counted.status == 1)
        #expect(counted.stderr.contains("--processes measures time"))
    }

    /// A report whose one benchmark took `wall` ns/op, on a CPU for `cpu` of them.
    func writeReport(wall: Double, cpu: Double, to url: URL) throws {
        let walls = (0..<20).map { wall * (1 + 0.01 * sin(Double($0) * 1.7)) }
        try cli.writeReport(walls, environment: CommandLineTests.thisMachine, to: url)
        var report = try ReportCoding.load(from: url)
        for index in report.benchmarks[0].samples.indices {
            report.benchmarks[0].samples[index].cpuNanoseconds =
                report.benchmarks[0].samples[index].wallNanoseconds * cpu / wall
        }
        try ReportCoding.write(report, to: url)
    }

    @Test func compareExitsThreeWhenTheMachineWasBusy() throws {
        let directory = try cli.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let quiet = directory.appendingPathComponent("quiet.json")
        let busy = directory.appendingPathComponent("busy.json")
        let busyAndSlower = directory.appendingPathComponent("busy-slower.json")
        try writeReport(wall: 100, cpu: 100, to: quiet)
        try writeReport(wall: 190, cpu: 100, to: busy)
        try writeReport(wall: 230, cpu: 125, to: busyAndSlower)
        try writeReport(wall: 125, cpu: 125, to: directory.appendingPathComponent("quiet-slower.json"))

        let inconclusive = try cli.perfkit(["compare", quiet.path, busy.path, "--format", "markdown"])
        #expect(inconclusive.status == 3)
        #expect(inconclusive.stdout.contains("1 inconclusive (machine busy)"))

        // Slower in CPU time on the busier side: the neighbours' part cannot be told from a change.
        let slower = try cli.perfkit(["compare", quiet.path, busyAndSlower.path])
        #expect(slower.status == 3)
        #expect(slower.stdout.contains("neighbours raise CPU time too"))
        // The quiet side slower despite the busy baseline's neighbours: a regression.
        let regressed = try cli.perfkit([
            "compare", busy.path, directory.appendingPathComponent("quiet-slower.json").path,
        ])
        #expect(regressed.status == 2)
    }
}
