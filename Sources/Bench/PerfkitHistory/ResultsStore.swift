import Foundation

/// Where runs are kept: an SQLite file (`SQLiteResultsStore`) for one machine or one CI cache, a
/// PostgreSQL database for a team's runners. The analysis reads plain `HistoryRun`s from either.
public protocol ResultsStore {
    /// The file or database, as the user named it (for messages).
    var location: String { get }

    /// Adds the runs in one transaction: all of them or, when anything fails (or the process dies
    /// half-way), none. A run whose digest is stored already is not added again.
    func add(_ runs: [HistoryRun]) throws -> [StoreAddOutcome]

    /// Every stored run with its results, oldest first.
    func runs() throws -> [HistoryRun]
}

/// What `add` did with one run.
public struct StoreAddOutcome: Sendable, Equatable {
    public var digest: String
    /// Nil when the run was added now; when it was stored already, the time it was first added.
    public var alreadyAddedAt: Date?

    public init(digest: String, alreadyAddedAt: Date?) {
        self.digest = digest
        self.alreadyAddedAt = alreadyAddedAt
    }

    public var added: Bool { alreadyAddedAt == nil }
}

/// A store that could not be opened, read or written: a kind to switch on, a one-line message
/// that names the store, and the error underneath.
public struct StoreError: Error, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The store's library (SQLite, the PostgreSQL client) is not available here.
        case unavailable
        /// No store at that place (a command that only reads was given a path that does not exist).
        case notFound
        /// The file or database cannot be opened or created.
        case cannotOpen
        /// Not a perfkit history: another program's database, a damaged file, or not a database.
        case notAHistory
        /// Written by a newer perfkit whose format this one does not know.
        case newerFormat(Int)
        /// Another writer held the store longer than the wait allows.
        case busy
        /// A statement failed (disk full, read-only file, …).
        case failed
    }

    public var kind: Kind
    public var location: String
    public var problem: String
    public var cause: (any Error)?

    public init(_ kind: Kind, location: String, problem: String, cause: (any Error)? = nil) {
        self.kind = kind
        self.location = location
        self.problem = problem
        self.cause = cause
    }

    public var description: String { "\(location): \(problem)" }
}
