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

    @Test func theChildOptionParsesAndALaterFilterWins() throws {
        let command = try RunCommand.parse([
            "--filter", "user", "--processes", "3", "--child-report-directory", "/tmp/x", "--filter", "^(S/g/a)$",
        ])
        #expect(command.filter == "^(S/g/a)$")
        #expect(command.childReportDirectory == "/tmp/x")
        #expect(command.processes == 3)
    }
}
