import Foundation
import PerfReport
import Testing

/// Runs the real `perfkit` executable (the debug build next to the tests) the way a user or CI
/// does, and checks exit codes, messages and files.
@Suite struct CommandLineTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static var executable: URL {
        let products = packageRoot.appendingPathComponent(".build/debug/perfkit")
        return products
    }

    @discardableResult
    func perfkit(_ arguments: [String], interruptAfter seconds: Double? = nil) throws -> Outcome {
        try run(Self.executable, arguments, interruptAfter: seconds)
    }

    /// `perfkit <command> --help` with its line wrapping undone: its words, one space apart.
    func helpWords(_ command: String) throws -> String {
        try perfkit([command, "--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Runs `executable` to its end (SIGINT after `seconds`, if given): its status and output.
    func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
        currentDirectory: URL? = nil, interruptAfter seconds: Double? = nil
    ) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        if let seconds {
            Thread.sleep(forTimeInterval: seconds)
            kill(process.processIdentifier, SIGINT)
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    func temporaryDirectory() throws -> URL {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("perfkit-cli-\(UUID())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func reports(in directory: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .map { $0.appendingPathComponent("report.json") }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// A report with one benchmark whose samples are `values` ns/op.
    /// This machine and the tests' debug build, as a run's report records them: a baseline made
    /// with it compares with a run of the tests' `perfkit` (times taken elsewhere do not).
    static var thisMachine: Environment {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        return Environment(
            host: "h", os: "o", kernel: "k", cpuModel: model, coreCount: ProcessInfo.processInfo.activeProcessorCount,
            memoryBytes: nil, swiftVersion: "6.3", buildConfiguration: "debug", gitCommit: nil, loadAverage: [],
            cpuGovernor: nil)
    }

    func writeReport(
        _ values: [Double], id: String = "S/g/c", environment: Environment? = nil, profile: FunctionProfile? = nil,
        to url: URL
    ) throws {
        let samples = values.map { Sample(iterations: 1000, wallNanoseconds: $0 * 1000) }
        let stats = Statistics(
            count: values.count, min: values.min()!, max: values.max()!,
            mean: values.reduce(0, +) / Double(values.count),
            median: values.sorted()[values.count / 2], standardDeviation: 0, coefficientOfVariation: 0,
            medianAbsoluteDeviation: 0, p90: values.max()!, p99: values.max()!,
            medianConfidenceInterval: ConfidenceInterval(lower: values.min()!, upper: values.max()!, level: 0.95),
            outliers: OutlierCounts())
        let parts = id.split(separator: "/").map(String.init)
        var result = BenchmarkResult(
            id: id, suite: parts[0], group: parts[1], name: parts[2], samples: samples, wallTime: stats)
        result.functionProfile = profile
        let report = Report(
            createdAt: Date(),
            environment: environment
                ?? Environment(
                    host: "h", os: "o", kernel: "k", cpuModel: "c", coreCount: 2, memoryBytes: nil,
                    swiftVersion: "6.3", buildConfiguration: "release", gitCommit: nil, loadAverage: [],
                    cpuGovernor: nil),
            settings: RunSettings(
                filter: nil, quick: false, samples: values.count, timeBudgetSeconds: 1, warmupSeconds: 0.1,
                minSampleNanoseconds: 1e6, allocations: false, instructions: false),
            clock: ClockInfo(source: "CLOCK_MONOTONIC", resolutionNanoseconds: 1, overheadNanoseconds: 20),
            metrics: [],
            benchmarks: [result])
        try ReportCoding.write(report, to: url)
    }

    func noisy(around center: Double, count: Int = 20) -> [Double] {
        (0..<count).map { center * (1 + 0.01 * sin(Double($0) * 1.7)) }
    }

    @Test func compareExitCodes() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let base = directory.appendingPathComponent("base.json")
        let same = directory.appendingPathComponent("same.json")
        let slower = directory.appendingPathComponent("slower.json")
        try writeReport(noisy(around: 100), to: base)
        try writeReport(noisy(around: 100.2), to: same)
        try writeReport(noisy(around: 120), to: slower)

        let unchanged = try perfkit(["compare", base.path, same.path])
        #expect(unchanged.status == 0)
        #expect(!unchanged.stdout.contains("regressed  "))

        let regressed = try perfkit(["compare", base.path, slower.path, "--format", "markdown"])
        #expect(regressed.status == 2)
        #expect(regressed.stdout.contains("**1 regressed**"))

        let wide = try perfkit(["compare", base.path, slower.path, "--threshold", "50"])
        #expect(wide.status == 0)
    }

    @Test func badInputIsOneLineAndExitOne() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("good.json")
        try writeReport(noisy(around: 100), to: good)
        let broken = directory.appendingPathComponent("broken.json")
        try Data("{\"schemaVersion\": 1,\n  \"benchmarks\": [1, }".utf8).write(to: broken)

        let malformed = try perfkit(["compare", good.path, broken.path])
        #expect(malformed.status == 1)
        #expect(
            malformed.stderr == "Error: \(broken.path): not valid JSON: "
                + malformed.stderr.dropFirst("Error: \(broken.path): not valid JSON: ".count))
        #expect(malformed.stderr.contains("line 2"))
        #expect(malformed.stderr.split(separator: "\n").count == 1)

        let missing = try perfkit(["compare", good.path, "/nonexistent.json"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: /nonexistent.json: cannot read: no such file\n")

        let usage = try perfkit(["compare", good.path])
        #expect(usage.status == 1)

        // A baseline of another package: no benchmark in common, so nothing would be compared.
        let other = directory.appendingPathComponent("other.json")
        try writeReport(noisy(around: 100), id: "Other/g/c", to: other)
        let unrelated = try perfkit(["compare", other.path, good.path])
        #expect(unrelated.status == 1)
        #expect(unrelated.stderr.hasPrefix("Error: \(other.path): shares no benchmark with this run"))
        #expect(unrelated.stderr.split(separator: "\n").count == 1)
        let gated = try perfkit([
            "run", "--allow-debug-build", "--quick", "--filter", "Harness/baseline/identity", "--baseline", other.path,
            "--output", directory.path,
        ])
        #expect(gated.status == 1)
        #expect(gated.stderr.contains("shares no benchmark with this run"))
        #expect(try reports(in: directory).isEmpty, "refused before measuring, nothing written")

        let filter = try perfkit([
            "run", "--allow-debug-build", "--filter", "no-such-benchmark", "--output", directory.path,
        ])
        #expect(filter.status == 1)
        #expect(filter.stderr.contains("--filter 'no-such-benchmark': matches no benchmark"))

        let blocker = directory.appendingPathComponent("file")
        try Data().write(to: blocker)
        let output = try perfkit(["run", "--allow-debug-build", "--output", blocker.path + "/reports"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("cannot create the report directory"))
        #expect(output.stdout.isEmpty)
    }

    @Test func debugBuildIsRefusedWithoutTheFlag() throws {
        let outcome = try perfkit(["run", "--quick"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("this is a debug build"))
    }

    @Test func runWritesValidReportsInEveryFormat() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try perfkit([
            "run", "--allow-debug-build", "--quick", "--filter", "Harness/baseline/(black-hole|identity)",
            "--format", "json,google-benchmark,markdown,html", "--output", directory.path,
        ])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("Harness/baseline/black-hole"))
        let reportURL = try #require(try reports(in: directory).first)
        let report = try ReportCoding.load(from: reportURL)
        #expect(report.benchmarks.map(\.id) == ["Harness/baseline/black-hole", "Harness/baseline/identity"])
        #expect(report.environment.buildConfiguration == "debug")
        #expect(report.complete)
        let folder = reportURL.deletingLastPathComponent()
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files == ["google-benchmark.json", "report.html", "report.json", "report.md"])
        #expect(outcome.stdout.contains("report: \(reportURL.path)"))
    }

    /// `perfkit run` measures off the main thread while the main thread runs dispatchMain(), so a
    /// benchmark can hop to the main queue.
    @Test func runDrainsTheMainQueue() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try perfkit([
            "run", "--allow-debug-build", "--quick", "--filter", "DispatchBench/gcd/hop-(serial|main)",
            "--output", directory.path,
        ])
        #expect(outcome.status == 0)
        let report = try ReportCoding.load(from: try #require(try reports(in: directory).first))
        #expect(report.complete)
        let main = try #require(report.benchmarks.first { $0.name == "hop-main-queue-round-trip" })
        #expect(main.claim?.evidence.contains("vs hop-serial-round-trip") == true)
        #expect(main.wallTime.median > 0)
    }

    @Test func runSpreadsSamplesOverRounds() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try perfkit([
            "run", "--allow-debug-build", "--filter", "Harness/baseline/identity", "--samples", "6", "--rounds", "3",
            "--time-budget", "0.3", "--output", directory.path,
        ])
        #expect(outcome.status == 0)
        let report = try ReportCoding.load(from: try #require(try reports(in: directory).first))
        #expect(report.settings.rounds == 3)
        let result = try #require(report.benchmarks.first)
        #expect(result.samples.count >= 3 && result.samples.count <= 6)

        let zero = try perfkit(["run", "--allow-debug-build", "--rounds", "0", "--output", directory.path])
        #expect(zero.status == 1)
        #expect(zero.stderr.contains("--rounds must be at least 1"))
    }

    @Test func runWithBaselineExitsTwoOnRegression() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A baseline that claims the benchmark once took a hundredth of a nanosecond: the real run
        // is certainly far slower.
        let baseline = directory.appendingPathComponent("baseline.json")
        try writeReport(
            noisy(around: 0.01), id: "Harness/baseline/identity", environment: Self.thisMachine, to: baseline)
        let outcome = try perfkit([
            "run", "--allow-debug-build", "--quick", "--filter", "Harness/baseline/identity", "--baseline",
            baseline.path, "--output", directory.path,
        ])
        #expect(outcome.status == 2)
        #expect(outcome.stdout.contains("regressed"))
        let report = try ReportCoding.load(from: try #require(try reports(in: directory).first))
        let regressed = report.comparison?.hasRegression == true
        #expect(regressed)
    }

    @Test func interruptWritesWhatFinishedMarkedIncomplete() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Three benchmarks of about 4 s each in one round; Ctrl-C after 2.5 s lands in the first or
        // second (RoundsTests covers an interruption in a later round).
        let outcome = try perfkit(
            [
                "run", "--allow-debug-build", "--filter", "Harness/baseline/(black-hole|identity|allocate-array)",
                "--time-budget", "4", "--rounds", "1", "--output", directory.path,
            ], interruptAfter: 2.5)
        #expect(outcome.status == 130)
        let report = try ReportCoding.load(from: try #require(try reports(in: directory).first))
        let complete = report.complete
        #expect(!complete)
        #expect(report.incompleteReason?.hasPrefix("interrupted after") == true)
        #expect(report.benchmarks.count < 3)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .flatMap { try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent($0).path) }
        #expect(leftovers.allSatisfy { !$0.contains(".tmp-") })
    }
}
