import Foundation
import HistoryStoreContract
import PostgresNIO
import Testing

@_spi(Tooling) import PerfkitHistory
@testable import PostgresHistory

/// perfkit's store contract on a real PostgreSQL server, through the store and through real
/// `perfkit-history` processes, each test in a database of its own; then what only a server has.
struct PostgresResultsStoreTests {
    @Test(arguments: StoreContractCheck.allCases) func contract(_ check: StoreContractCheck) throws {
        let database = try TestDatabase()
        defer { database.drop() }
        try check.run(on: PostgresStoreSubject(database: database))
    }

    @Test(arguments: StoreToolCheck.allCases) func contractThroughPerfkitHistory(_ check: StoreToolCheck) throws {
        let database = try TestDatabase()
        defer { database.drop() }
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try check.run(tool: perfkitHistory, store: database.url, folder: folder) {
            try PostgresResultsStore(url: database.url, create: false).runs().count
        }
    }

    /// The test server asks for a password (scram-sha-256), given in the URL: every line the
    /// commands print names the store with "***" in its place, and a wrong one is refused in one line.
    @Test func perfkitHistoryNamesTheStoreWithoutItsPassword() throws {
        let database = try TestDatabase()
        defer { database.drop() }
        let password = try #require(
            URLComponents(string: database.url)?.password,
            "the test server's URL has no password (scripts/postgres-history-check.sh gives one)")
        let redacted = StoreLocation.redacted(database.url)
        #expect(redacted.contains(":***@") && !redacted.contains(password))
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let report = folder.appendingPathComponent("report.json")
        try ContractFixtures.writeReport(minute: 0, to: report)

        let added = try run(perfkitHistory, ["history", "add", report.path, "--store", database.url])
        #expect(added.status == 0, "\(added.output)")
        #expect(added.output.contains("history: 1 added, 0 already stored: \(redacted)"), "\(added.output)")
        let listed = try run(perfkitHistory, ["history", "list", "--store", database.url])
        #expect(listed.output.hasPrefix("history: \(redacted): 1 run on 1 machine"), "\(listed.output)")
        let changes = try run(perfkitHistory, ["history", "changes", "--store", database.url])
        #expect(changes.status == 0, "\(changes.output)")
        for outcome in [added, listed, changes] { #expect(!outcome.output.contains(password)) }

        var components = try #require(URLComponents(string: database.url))
        components.password = "not-the-password"
        let wrong = try #require(components.string)
        let refused = try run(perfkitHistory, ["history", "list", "--store", wrong])
        #expect(refused.status == 1)
        let user = components.user ?? ""
        #expect(
            refused.output == "Error: \(StoreLocation.redacted(wrong)): the server says: password authentication "
                + "failed for user \"\(user)\" (SQLSTATE 28P01)\n")
        #expect(!refused.output.contains("not-the-password"))
    }

    @Test func aMissingDatabaseOrServerIsAOneLineError() throws {
        let database = try TestDatabase()
        database.drop()
        let missing = try #require(throws: StoreError.self) {
            try PostgresResultsStore(url: database.url, create: false)
        }
        #expect(missing.kind == .notFound)
        let notCreated = try #require(throws: StoreError.self) {
            try PostgresResultsStore(url: database.url, create: true)
        }
        #expect(notCreated.kind == .cannotOpen)
        #expect(
            notCreated.description.hasSuffix("create the database first (createdb \(database.name))"), "\(notCreated)")

        // Port 1 on loopback: nothing listens there.
        var components = try #require(URLComponents(string: database.url))
        components.host = "127.0.0.1"
        components.port = 1
        let closed = try #require(components.string)
        let unreachable = try #require(throws: StoreError.self) { try PostgresResultsStore(url: closed, create: true) }
        #expect(unreachable.kind == .cannotOpen)
        #expect(
            unreachable.description.hasSuffix(": cannot connect to the server (connection refused)"), "\(unreachable)")
        for error in [missing, notCreated, unreachable] { #expect(!error.description.contains("\n")) }
    }

    /// A table that is called `perfkit_history` but is not perfkit's is another program's.
    @Test func aTableWithPerfkitsNameButNotItsColumnsIsRefused() throws {
        let database = try TestDatabase()
        defer { database.drop() }
        try database.session().query("CREATE TABLE perfkit_history (note text)")
        let error = try #require(throws: StoreError.self) { try PostgresResultsStore(url: database.url, create: true) }
        #expect(error.kind == .notAHistory)
    }

    /// The built `perfkit-history`, next to the test bundle.
    var perfkitHistory: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("perfkit-history")
    }

    func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("perfkit-history-\(UUID())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs `tool` to its end: its status, and its stdout and stderr together.
    func run(_ tool: URL, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}

/// A database of its own for one test, on the server PERFKIT_TEST_POSTGRES_URL names (as a role
/// that may create databases).
struct TestDatabase: Sendable {
    static let serverVariable = "PERFKIT_TEST_POSTGRES_URL"

    let name: String
    let url: String
    let serverURL: String

    init() throws {
        serverURL = try #require(
            ProcessInfo.processInfo.environment[Self.serverVariable],
            "\(Self.serverVariable) names no server (scripts/postgres-history-check.sh starts one and sets it)")
        name = "perfkit_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        var components = try #require(URLComponents(string: serverURL))
        components.path = "/" + name
        url = try #require(components.string)
        try Self.session(serverURL).query(PostgresQuery(unsafeSQL: "CREATE DATABASE \"\(name)\""))
    }

    /// A connection of the test's own, behind the store's back.
    func session() throws -> PostgresSession { try Self.session(url) }

    static func session(_ url: String) throws -> PostgresSession {
        try PostgresSession(PostgresStoreURL(url, environment: ProcessInfo.processInfo.environment))
    }

    /// FORCE: ends the connections a test left open (a killed process's may linger a moment).
    func drop() {
        _ = try? Self.session(serverURL).query(
            PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)"))
    }
}

/// A fresh database for the store contract; another program's data is a table of notes.
struct PostgresStoreSubject: StoreContractSubject {
    var database: TestDatabase

    var location: String { StoreLocation.redacted(database.url) }

    func open(create: Bool) throws -> any ResultsStore { try PostgresResultsStore(url: database.url, create: create) }

    func isEmpty() throws -> Bool { try relationCount() == 0 }

    func writeForeignData() throws {
        let session = try database.session()
        try session.query("CREATE TABLE notes (text text)")
        try session.query("INSERT INTO notes VALUES ('mine')")
    }

    func foreignDataIsUntouched() throws -> Bool {
        let notes = try database.session().query("SELECT text FROM notes").map { try $0.decode(String.self) }
        return try relationCount() == 1 && notes == ["mine"]
    }

    func setFormatVersion(_ version: Int) throws {
        try database.session().query("UPDATE perfkit_history SET format = \(version)")
    }

    func makeFormatOne() throws {
        let session = try database.session()
        try session.query("ALTER TABLE results DROP COLUMN build_id")
        try session.query("UPDATE perfkit_history SET format = 1")
    }

    /// Tables, views and the like in the public schema.
    private func relationCount() throws -> Int64 {
        let rows = try database.session().query(
            """
            SELECT count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
            """)
        return try #require(rows.first).decode(Int64.self)
    }
}
