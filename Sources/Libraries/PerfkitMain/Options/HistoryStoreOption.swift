import ArgumentParser
import History

/// `--store`: where the history is kept, shared by every `history` command and `run --history`.
struct HistoryStoreOption: ParsableArguments {
    static let defaultPath = "Reports/history.sqlite"

    @Option(
        name: .customLong("store"),
        help: "The history: an SQLite file, created on first add (default \(HistoryStoreOption.defaultPath)).")
    var path = HistoryStoreOption.defaultPath

    /// Opens the store; `create` for the commands that add.
    func open(create: Bool) throws -> any ResultsStore {
        try Self.open(path, create: create)
    }

    static func open(_ path: String, create: Bool) throws -> any ResultsStore {
        if path.hasPrefix("postgresql://") || path.hasPrefix("postgres://") {
            throw PerfkitError(
                .unsupported, "\(path): a PostgreSQL store is not supported by this perfkit yet (use an SQLite file)")
        }
        do {
            return try SQLiteResultsStore(path: path, create: create)
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
