/// A value bound to or read from a statement.
enum SQLiteValue: Sendable, Equatable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case null

    var integer: Int64? { if case .integer(let v) = self { v } else { nil } }
    var real: Double? {
        switch self {
        case .real(let v): v
        case .integer(let v): Double(v)
        default: nil
        }
    }
    var text: String? { if case .text(let v) = self { v } else { nil } }
}

/// One open database file: statements run on the thread that owns the connection (a command's
/// thread); not shared.
final class SQLiteConnection {
    // SQLite's result codes and flags this file uses (sqlite3.h; stable since SQLite 3.0).
    static let ok: Int32 = 0
    static let busy: Int32 = 5
    static let locked: Int32 = 6
    static let corrupt: Int32 = 11
    static let cannotOpen: Int32 = 14
    static let notADatabase: Int32 = 26
    static let row: Int32 = 100
    static let done: Int32 = 101
    static let openReadOnly: Int32 = 0x01
    static let openReadWrite: Int32 = 0x02
    static let openCreate: Int32 = 0x04
    static let columnInteger: Int32 = 1
    static let columnFloat: Int32 = 2
    static let columnText: Int32 = 3

    let path: String
    private let library: SQLiteLibrary
    private var database: SQLiteLibrary.Database?

    /// Opens (or, unless `readOnly`, creates) the database at `path`. Waits up to `busyTimeoutMilliseconds` for
    /// another writer (two `history add` at once on one machine) before failing with `.busy`.
    init(path: String, readOnly: Bool = false, busyTimeoutMilliseconds: Int32 = 30_000) throws {
        self.path = path
        library = try SQLiteLibrary.shared.get()
        let flags = readOnly ? Self.openReadOnly : Self.openReadWrite | Self.openCreate
        var handle: SQLiteLibrary.Database?
        let code = library.open(path, &handle, flags, nil)
        guard code == Self.ok, let handle else {
            let message = handle.flatMap { library.errmsg($0) }.map { String(cString: $0) } ?? "error \(code)"
            _ = library.close(handle)
            throw SQLiteError(SQLiteError.kind(of: code), "cannot open: \(message)", detail: message, resultCode: code)
        }
        database = handle
        _ = library.busyTimeout(handle, busyTimeoutMilliseconds)
    }

    deinit { _ = library.close(database) }

    /// SQLite's version ("3.40.1").
    var libraryVersion: String { library.libversion().map { String(cString: $0) } ?? "unknown" }

    /// Runs one statement and returns its rows.
    @discardableResult
    func query(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        let statement = try prepare(sql)
        return try statement.rows(bindings)
    }

    /// A statement to run many times (one insert per benchmark).
    func prepare(_ sql: String) throws -> PreparedStatement {
        var statement: SQLiteLibrary.Statement?
        let code = library.prepare(database, sql, -1, &statement, nil)
        guard code == Self.ok, let statement else { throw error(code, doing: "prepare") }
        return PreparedStatement(connection: self, statement: statement)
    }

    func error(_ code: Int32, doing what: String) -> SQLiteError {
        let message = library.errmsg(database).map { String(cString: $0) } ?? "error \(code)"
        return SQLiteError(SQLiteError.kind(of: code), "\(what): \(message)", detail: message, resultCode: code)
    }

    final class PreparedStatement {
        private let connection: SQLiteConnection
        private let statement: SQLiteLibrary.Statement
        private var library: SQLiteLibrary { connection.library }

        fileprivate init(connection: SQLiteConnection, statement: SQLiteLibrary.Statement) {
            self.connection = connection
            self.statement = statement
        }

        deinit { _ = library.finalize(statement) }

        /// Binds `bindings` (?1, ?2, …), steps to the end and returns every row.
        @discardableResult
        func rows(_ bindings: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
            _ = library.reset(statement)
            for (offset, value) in bindings.enumerated() {
                let index = Int32(offset + 1)
                let code: Int32 =
                    switch value {
                    case .integer(let v): library.bindInt64(statement, index, v)
                    case .real(let v): library.bindDouble(statement, index, v)
                    case .text(let v): library.bindText(statement, index, v, -1, SQLiteLibrary.transient)
                    case .null: library.bindNull(statement, index)
                    }
                guard code == SQLiteConnection.ok else { throw connection.error(code, doing: "bind") }
            }
            var rows: [[SQLiteValue]] = []
            while true {
                let code = library.step(statement)
                if code == SQLiteConnection.done { break }
                guard code == SQLiteConnection.row else {
                    let failure = connection.error(code, doing: "step")
                    _ = library.reset(statement)
                    throw failure
                }
                rows.append(currentRow())
            }
            _ = library.reset(statement)
            return rows
        }

        private func currentRow() -> [SQLiteValue] {
            (0..<library.columnCount(statement)).map { column in
                let type = library.columnType(statement, column)
                return switch type {
                case SQLiteConnection.columnInteger: .integer(library.columnInt64(statement, column))
                case SQLiteConnection.columnFloat: .real(library.columnDouble(statement, column))
                case SQLiteConnection.columnText:
                    .text(library.columnText(statement, column).map { String(cString: $0) } ?? "")
                default: .null
                }
            }
        }
    }
}
