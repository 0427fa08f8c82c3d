import Foundation
import PerfReport
import Testing
import ProbeRecords

/// `perfkit startup` and `perfkit watch-demo`, run as a user would.
extension CommandLineTests {
    @Test func startupTimesTheHelpersPhasesIntoAReport() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let helper = Self.packageRoot.appendingPathComponent(".build/debug/probe-test-helper").path
        let outcome = try perfkit(["startup", "--runs", "3", "--output", directory.path, "--", helper, "startup"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let report = try ReportCoding.load(from: try #require(try reports(in: directory).first))
        let result = try #require(report.startup?.first)
        #expect(result.runs == 3)
        #expect(result.mode == "warm")
        #expect(result.phases.map(\.name) == ["runtime-init", "main", "config-loaded", "ready", "exit"])
        #expect(result.phases.allSatisfy { $0.nanosecondsSinceStart.count == 3 })
        #expect(result.majorPageFaultsPerLaunch.count == 3)
        #expect(result.total.median == result.phases[3].statistics.median)  // total is the time to "ready"
    }

    @Test func startupOfAMissingProgramIsAOneLineError() throws {
        let outcome = try perfkit(["startup", "--runs", "1", "--", "/nonexistent/program"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("/nonexistent/program"))
        #expect(outcome.stderr.split(separator: "\n").count == 1)
    }

    /// One `--format` and `--output` for both, each with its own default formats.
    @Test func startupAndWatchDemoShowTheirReportFormats() throws {
        #expect(try helpWords("startup").contains("(values: json, html, google-benchmark, markdown; default: json)"))
        #expect(
            try helpWords("watch-demo").contains("(values: json, html, google-benchmark, markdown; default: json,html)")
        )
    }

    @Test func watchDemoReportsItsThreeStallsWithTheirFunctions() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A 100 ms threshold: the main thread waited >60 ms for a CPU once with the suite's other
        // perfkit processes beside an emulated compile (load ~5 on 2 vCPUs, 2026-12-07).
        let outcome = try perfkit([
            "watch-demo", "--threshold-ms", "100", "--stall-ms", "300", "--output", directory.path, "--format", "json",
        ])
        let report = try ReportCoding.load(from: try #require(try reports(in: directory).first))
        let stalls = try #require(report.stalls)
        let found = stalls.map {
            "\($0.classification.rawValue) \(Int($0.durationNanoseconds / 1e6)) ms \($0.topStack.prefix(4).compactMap(\.symbol))"
        }
        #expect(outcome.status == 0, "\(found)")
        try #require(stalls.count == 3, "\(found)")
        func symbols(_ stall: StallRecord) -> [String] { stall.topStack.compactMap(\.symbol) }
        #expect(symbols(stalls[0]).contains { $0.contains("demoBusyLoop") }, "\(symbols(stalls[0]))")
        #expect(symbols(stalls[1]).contains { $0.contains("demoLockWait") }, "\(symbols(stalls[1]))")
        #expect(stalls[1].classification == .blocked)
        #expect(symbols(stalls[2]).contains { $0.contains("nanosleep") })
        #expect(stalls[2].classification == .blocked)
    }
}

/// `perfkit memory-demo` and the breadcrumb's cost, run as a user would.
extension CommandLineTests {
    @Test(.enabled(if: getuid() == 0, "makes a memory cgroup: needs root"))
    func memoryDemoShowsWarningsAndAKilledForMemoryVerdict() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try perfkit(["memory-demo", "--limit-mib", "64", "--output", directory.path])
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stdout.contains("memory warning (near-limit)"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("killed-for-memory, certain"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("OOM kill"), "\(outcome.stdout)")
    }

    @Test func memoryDemoWithABadLimitIsAOneLineError() throws {
        let outcome = try perfkit(["memory-demo", "--limit-mib", "8"])
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("--limit-mib must be at least 32"))
    }

    /// The breadcrumb's update, counted by malloc-interposer through `run --allocations`: nothing.
    @Test func theBreadcrumbUpdateAllocatesNothing() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try perfkit([
            "run", "--quick", "--allocations", "--allow-debug-build", "--filter", "^Probe/memory/breadcrumb-update$",
            "--format", "json", "--output", directory.path,
        ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let report = try ReportCoding.load(from: try #require(try reports(in: directory).first))
        let result = try #require(report.benchmarks.first)
        #expect(result.id == "Probe/memory/breadcrumb-update")
        #expect(result.allocationsPerOperation == 0)
    }
}
