import Foundation
import Testing

@testable import PerfkitMain

/// A child of `run --processes N` is the command line the user typed, then where its report goes
/// and, for the second look, the suspects' filter (a later `--filter` wins).
@Suite struct ProcessRunsTests {
    @Test func aChildIsThisCommandLineWithItsReportDirectoryAndFilterLast() {
        let directory = URL(fileURLWithPath: "/tmp/perfkit-processes/process-0")
        let own = Array(CommandLine.arguments.dropFirst())
        #expect(
            ProcessRuns(count: 3).childArguments(reportDirectory: directory)
                == own + ["--child-report-directory", directory.path])
        #expect(
            ProcessRuns(count: 1, filter: "^(S/g/a)$").childArguments(reportDirectory: directory)
                == own + ["--child-report-directory", directory.path, "--filter", "^(S/g/a)$"])
    }

    @Test func onlyTheFirstChildTakesTimeProfiles() {
        let directory = URL(fileURLWithPath: "/tmp/perfkit-processes/process-1")
        let arguments = ["run", "--profile", "--processes", "3"]
        let runs = ProcessRuns(count: 3)
        #expect(
            runs.childArguments(reportDirectory: directory, index: 0, arguments: arguments)
                == arguments + ["--child-report-directory", directory.path])
        #expect(
            runs.childArguments(reportDirectory: directory, index: 1, arguments: arguments)
                == ["run", "--processes", "3", "--child-report-directory", directory.path])
    }

    /// A baseline of a few benchmarks measured in processes profiles its first process by default
    /// (the flag added to that child only); `--no-profile`, a gated run or many benchmarks do not.
    @Test func aSmallBaselineProfilesItsFirstProcessByDefault() throws {
        let directory = URL(fileURLWithPath: "/tmp/perfkit-processes/process-0")
        let arguments = ["run", "--processes", "10", "--output", "base"]
        let runs = ProcessRuns(count: 10, profileFirst: true)
        #expect(
            runs.childArguments(reportDirectory: directory, index: 0, arguments: arguments)
                == arguments + ["--profile", "--child-report-directory", directory.path])
        #expect(
            runs.childArguments(reportDirectory: directory, index: 1, arguments: arguments)
                == arguments + ["--child-report-directory", directory.path])
        #expect(RunCommand.profilesByDefault(benchmarks: 4, gating: false, instructions: false))
        #expect(!RunCommand.profilesByDefault(benchmarks: 4, gating: true, instructions: false))
        #expect(!RunCommand.profilesByDefault(benchmarks: 21, gating: false, instructions: false))
        #expect(!RunCommand.profilesByDefault(benchmarks: 4, gating: false, instructions: true))
        #expect(try RunCommand.parse(["--processes", "10", "--no-profile"]).profile == false)
        #expect(try RunCommand.parse(["--processes", "10"]).profile == nil)
    }

    @Test func theChildOptionParsesAndALaterFilterWins() throws {
        let command = try RunCommand.parse([
            "--filter", "user", "--processes", "3", "--child-report-directory", "/tmp/x", "--filter", "^(S/g/a)$",
        ])
        #expect(command.filter == "^(S/g/a)$")
        #expect(command.childReportDirectory == "/tmp/x")
        #expect(command.processes == 3)
    }
}
