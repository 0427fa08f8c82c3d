import ArgumentParser

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Keep every run's results and find when a benchmark changed.",
        discussion: """
            The history is an SQLite file (Reports/history.sqlite unless --store names another) or, with \
            perfkit-history, a PostgreSQL database (--store postgresql://…) holding, per run, the commit and \
            machine and, per benchmark, its median wall and CPU time with intervals, instructions and \
            allocations. Series are kept per benchmark, metric and machine.
            """,
        subcommands: [
            HistoryAddCommand.self, HistoryListCommand.self, HistoryChangesCommand.self, HistoryReportCommand.self,
        ]
    )
}
