import PerfkitHistory
import PostgresHistory

@_spi(Tooling) import PerfkitMain

/// `perfkit-history`: perfkit's `history` commands (add, list, changes) with PostgreSQL stores as
/// well as SQLite files, for a team whose CI runners all file their reports in one database.
@main
enum PerfkitHistoryTool {
    static func main() {
        let openPostgres: PerfkitMain.HistoryStoreOpener = { location, create in
            try PostgresResultsStore(url: location, create: create)
        }
        PerfkitMain.runHistory(
            commandName: "perfkit-history",
            abstract: "perfkit's results history in a PostgreSQL database (--store postgresql://…) or an SQLite file.",
            storeOpeners: ["postgresql": openPostgres, "postgres": openPostgres])
    }
}
