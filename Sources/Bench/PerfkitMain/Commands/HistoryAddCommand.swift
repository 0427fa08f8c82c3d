import ArgumentParser
import Foundation
import PerfkitHistory
import PerfReport

struct HistoryAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "File reports in the history (all of them or, on any error, none).",
        discussion: """
            Each report's commit is placed along the current repository's first-parent history. A report \
            stored already (the same content) is not added twice. Every report is read before anything is \
            written: a malformed one stops the command with the store unchanged.
            """
    )

    @Argument(help: "Reports (report.json) to add, e.g. Reports/*/report.json.")
    var reports: [String]

    @OptionGroup var store: HistoryStoreOption

    @OptionGroup var filing: HistoryFilingOptions

    func validate() throws {
        if reports.isEmpty { throw ValidationError("history add: name at least one report.json") }
    }

    func run() throws {
        let loaded = try reports.map { path in (path: path, report: try loadReport(path)) }
        try filing.filing.add(loaded, to: store.open(create: true))
    }
}

/// `--machine` and `--branch`: how a run is filed (`history add`, `run --history`).
struct HistoryFilingOptions: ParsableArguments {
    @Option(
        help: """
            Name the machine instead of keying its series by host, CPU, cores, kernel, Swift version and \
            build configuration (CI runners whose host name changes every job).
            """)
    var machine: String?

    @Option(help: "The branch to record (default: the branch checked out, when the report's commit is HEAD).")
    var branch: String?

    var filing: HistoryFiling { HistoryFiling(machineName: machine, branch: branch) }
}
