import ArgumentParser
@_spi(Tooling) import PerfkitHistory

/// `--store`: where the history is kept, shared by every `history` command and `run --history`.
struct HistoryStoreOption: ParsableArguments {
    static let defaultPath = "Reports/history.sqlite"

    @Option(
        name: .customLong("store"),
        help: """
            The history: an SQLite file, created on first add (default \(HistoryStoreOption.defaultPath)); \
            perfkit-history also opens postgresql:// URLs.
            """)
    var path = HistoryStoreOption.defaultPath

    /// Opens the store; `create` for the commands that add.
    func open(create: Bool) throws -> any ResultsStore {
        try Self.open(path, create: create)
    }

    /// A URL whose scheme the executable registered goes to that store; a PostgreSQL URL that no
    /// store was registered for is refused (perfkit itself has no PostgreSQL client); anything else
    /// is an SQLite file.
    static func open(_ location: String, create: Bool) throws -> any ResultsStore {
        do {
            if let scheme = StoreLocation.scheme(of: location) {
                if let opener = HistoryStores.openers[scheme] { return try opener(location, create) }
                if HistoryStores.postgresSchemes.contains(scheme) {
                    throw PerfkitError(
                        .unsupported,
                        "\(StoreLocation.redacted(location)): this perfkit opens SQLite files only; a PostgreSQL store "
                            + "needs perfkit-history (built from Integrations/PostgresHistory in perfkit's repository)")
                }
            }
            return try SQLiteResultsStore(path: location, create: create)
        } catch let error as StoreError {
            throw PerfkitError(error)
        }
    }
}

extension PerfkitError {
    /// A store that could not be opened, read or written.
    init(_ error: StoreError) {
        let kind: Kind =
            switch error.kind {
            case .unavailable: .missingTool
            case .cannotOpen, .busy, .failed: .cannotWrite
            case .notFound, .notAHistory, .newerFormat: .invalidInput
            }
        self.init(kind, error.description, cause: error)
    }
}
