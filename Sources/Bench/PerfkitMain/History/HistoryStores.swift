import ArgumentParser
import PerfkitHistory

extension PerfkitMain {
    /// Opens a store named by a URL: its location as the user gave it, and whether to create it
    /// (the commands that add) or refuse a store that is not there yet (those that only read).
    @_spi(Tooling) public typealias HistoryStoreOpener =
        @Sendable (_ location: String, _ create: Bool) throws -> any ResultsStore

    /// The `history` commands alone (`add`, `list`, `changes`, `report`), with stores perfkit does not open
    /// itself: `storeOpeners` maps a URL scheme ("postgresql") to its opener; any other `--store`
    /// is an SQLite file, as in `perfkit`. Parses the arguments, runs the command and exits.
    ///
    /// For `perfkit-history` (Integrations/PostgresHistory), a package of its own so that its
    /// database client is not part of perfkit's build.
    @_spi(Tooling) public static func runHistory(
        commandName: String, abstract: String, storeOpeners: [String: HistoryStoreOpener]
    ) -> Never {
        HistoryStores.openers = Dictionary(
            storeOpeners.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        PerfkitCommand.configuration = CommandConfiguration(
            commandName: commandName, abstract: abstract, version: perfkitVersionString,
            subcommands: [HistoryCommand.self])
        PerfkitCommand.parseAndRun()
    }
}

/// The stores the executable registered by URL scheme, for `--store` and `--history`.
enum HistoryStores {
    /// Set once, on the main thread, before the arguments are parsed; only read afterwards.
    nonisolated(unsafe) static var openers: [String: PerfkitMain.HistoryStoreOpener] = [:]

    /// The schemes of a PostgreSQL store, which `perfkit-history` opens.
    static let postgresSchemes: Set<String> = ["postgresql", "postgres"]
}
