#if canImport(Glibc)
    import Glibc
#endif

/// SQLite's C API, loaded from the system's `libsqlite3.so.0` when a store is first opened.
///
/// Loaded rather than linked, so that building a package that depends on PerfkitMain needs no
/// `libsqlite3-dev`: SwiftPM itself links the runtime library (docs/history.md#the-store). Without it,
/// only the history commands fail, with a one-line error naming the package to install.
struct SQLiteLibrary: @unchecked Sendable {  // Only C function pointers, set once by `load()`.
    typealias Database = OpaquePointer
    typealias Statement = OpaquePointer
    typealias Destructor = @convention(c) (UnsafeMutableRawPointer?) -> Void

    let open:
        @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<Database?>?, Int32, UnsafePointer<CChar>?) -> Int32
    let close: @convention(c) (Database?) -> Int32
    let prepare:
        @convention(c) (
            Database?, UnsafePointer<CChar>?, Int32, UnsafeMutablePointer<Statement?>?,
            UnsafeMutablePointer<UnsafePointer<CChar>?>?
        ) -> Int32
    let step: @convention(c) (Statement?) -> Int32
    let reset: @convention(c) (Statement?) -> Int32
    let finalize: @convention(c) (Statement?) -> Int32
    let bindInt64: @convention(c) (Statement?, Int32, Int64) -> Int32
    let bindDouble: @convention(c) (Statement?, Int32, Double) -> Int32
    let bindText: @convention(c) (Statement?, Int32, UnsafePointer<CChar>?, Int32, Destructor?) -> Int32
    let bindNull: @convention(c) (Statement?, Int32) -> Int32
    let columnCount: @convention(c) (Statement?) -> Int32
    let columnType: @convention(c) (Statement?, Int32) -> Int32
    let columnInt64: @convention(c) (Statement?, Int32) -> Int64
    let columnDouble: @convention(c) (Statement?, Int32) -> Double
    let columnText: @convention(c) (Statement?, Int32) -> UnsafePointer<UInt8>?
    let errmsg: @convention(c) (Database?) -> UnsafePointer<CChar>?
    let busyTimeout: @convention(c) (Database?, Int32) -> Int32
    let libversion: @convention(c) () -> UnsafePointer<CChar>?

    /// SQLite copies a text bound with this destructor (`SQLITE_TRANSIENT`, -1 in C).
    static let transient = unsafeBitCast(-1 as Int, to: Destructor.self)

    static let fileName = "libsqlite3.so.0"

    /// The library, or why it could not be loaded (once per process).
    static let shared: Result<SQLiteLibrary, SQLiteError> = Result { try load() }.mapError { $0 as! SQLiteError }

    private static func load() throws -> SQLiteLibrary {
        guard let handle = dlopen(fileName, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            throw SQLiteError(
                .libraryMissing, "SQLite is not installed (\(reason)); install it with: apt-get install libsqlite3-0")
        }
        func symbol<T>(_ name: String) throws -> T {
            guard let pointer = dlsym(handle, name) else {
                throw SQLiteError(.libraryMissing, "\(fileName) has no \(name) (SQLite 3.7 or newer is needed)")
            }
            return unsafeBitCast(pointer, to: T.self)
        }
        return SQLiteLibrary(
            open: try symbol("sqlite3_open_v2"), close: try symbol("sqlite3_close_v2"),
            prepare: try symbol("sqlite3_prepare_v2"), step: try symbol("sqlite3_step"),
            reset: try symbol("sqlite3_reset"), finalize: try symbol("sqlite3_finalize"),
            bindInt64: try symbol("sqlite3_bind_int64"),
            bindDouble: try symbol("sqlite3_bind_double"), bindText: try symbol("sqlite3_bind_text"),
            bindNull: try symbol("sqlite3_bind_null"), columnCount: try symbol("sqlite3_column_count"),
            columnType: try symbol("sqlite3_column_type"),
            columnInt64: try symbol("sqlite3_column_int64"), columnDouble: try symbol("sqlite3_column_double"),
            columnText: try symbol("sqlite3_column_text"), errmsg: try symbol("sqlite3_errmsg"),
            busyTimeout: try symbol("sqlite3_busy_timeout"), libversion: try symbol("sqlite3_libversion"))
    }
}
