/// A failure of the SQLite layer: a kind to switch on, SQLite's result code where it gave one, and
/// the message (SQLite's own `sqlite3_errmsg` text, prefixed with what was being done).
struct SQLiteError: Error, CustomStringConvertible, Sendable {
    enum Kind: Sendable, Equatable {
        /// `libsqlite3.so.0` could not be loaded, or lacks a function.
        case libraryMissing
        /// The file could not be opened or created.
        case cannotOpen
        /// The file is not an SQLite database (`SQLITE_NOTADB`) or is damaged (`SQLITE_CORRUPT`).
        case notADatabase
        /// Another process held the database longer than the busy timeout.
        case busy
        /// Any other failed statement.
        case failed
    }

    var kind: Kind
    var message: String
    /// SQLite's own words (`sqlite3_errmsg`), without what was being done.
    var detail: String
    /// SQLite's primary result code (`SQLITE_BUSY` is 5), nil when SQLite was not reached.
    var resultCode: Int32?

    var description: String { message }

    init(_ kind: Kind, _ message: String, detail: String? = nil, resultCode: Int32? = nil) {
        self.kind = kind
        self.message = message
        self.detail = detail ?? message
        self.resultCode = resultCode
    }

    /// The kind SQLite's result code means.
    static func kind(of code: Int32) -> Kind {
        switch code & 0xFF {
        case SQLiteConnection.notADatabase, SQLiteConnection.corrupt: .notADatabase
        case SQLiteConnection.busy, SQLiteConnection.locked: .busy
        case SQLiteConnection.cannotOpen: .cannotOpen
        default: .failed
        }
    }
}
