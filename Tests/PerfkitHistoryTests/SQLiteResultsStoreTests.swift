import Foundation
import HistoryStoreContract
import PerfReport
import Testing

@testable import PerfkitHistory

/// The SQLite store on real files: the store contract every store passes, and what only a file has
/// (its folder created, a file that is not a database).
struct SQLiteResultsStoreTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("history-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func path(_ name: String = "history.sqlite") -> String { folder.appendingPathComponent(name).path }

    @Test(arguments: StoreContractCheck.allCases) func contract(_ check: StoreContractCheck) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try check.run(on: SQLiteStoreSubject(path: path()))
    }

    @Test func aReportsRunComesBackFromANewFolder() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try HistoryRun(
            report: HistoryFixtures.report(commit: HistoryFixtures.commit(3)), commitPosition: 3, branch: "main")
        let store = try SQLiteResultsStore(path: path("sub/folder/h.sqlite"), create: true)
        #expect(try store.add([run]) == [StoreAddOutcome(digest: run.digest, alreadyAddedAt: nil)])
        let stored = try SQLiteResultsStore(path: path("sub/folder/h.sqlite"), create: false).runs()
        var expected = run
        expected.results.sort { ($0.benchmark, $0.metric.rawValue) < ($1.benchmark, $1.metric.rawValue) }
        #expect(stored == [expected])
        #expect(Set(run.results.map(\.metric)) == [.wall, .cpu, .instructions])
    }

    @Test func aReportFromAnotherHostIsAnotherMachine() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let here = try HistoryRun(report: HistoryFixtures.report(commit: HistoryFixtures.commit(1)))
        let laptop = try HistoryRun(report: HistoryFixtures.report(commit: HistoryFixtures.commit(1), host: "laptop"))
        #expect(here.machine.key != laptop.machine.key)
        // A named machine is one machine whatever its host.
        let named = try HistoryRun(
            report: HistoryFixtures.report(commit: HistoryFixtures.commit(2), host: "runner-81"), machineName: "ci")
        #expect(named.machine.key == "name=ci")
        #expect(named.machine.label == "ci")
    }

    @Test func aDirtyCommitIsRecordedAsSuch() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try HistoryRun(report: HistoryFixtures.report(commit: HistoryFixtures.commit(4) + "-dirty"))
        #expect(run.commit == HistoryFixtures.commit(4))
        #expect(run.dirty)
    }

    @Test func aFileThatIsNotADatabaseIsRefused() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("this is not SQLite, it is a text file with enough bytes to look like a header".utf8)
            .write(to: URL(fileURLWithPath: path()))
        let error = try #require(throws: StoreError.self) { try SQLiteResultsStore(path: path(), create: true) }
        #expect(error.kind == .notAHistory)
        #expect(error.description.hasPrefix(path() + ": not an SQLite database"))
        #expect(!error.description.contains("\n"))
    }

    @Test func anotherProgramsDatabaseIsCalledSo() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try SQLiteStoreSubject(path: path()).writeForeignData()
        let error = try #require(throws: StoreError.self) { try SQLiteResultsStore(path: path(), create: true) }
        #expect(error.description == "\(path()): not a perfkit history (an SQLite database of another program)")
    }
}

/// An SQLite file for the store contract; another program's data is a table of notes.
struct SQLiteStoreSubject: StoreContractSubject {
    var path: String

    var location: String { path }

    func open(create: Bool) throws -> any ResultsStore { try SQLiteResultsStore(path: path, create: create) }

    func isEmpty() throws -> Bool { !FileManager.default.fileExists(atPath: path) }

    func writeForeignData() throws {
        let other = try SQLiteConnection(path: path)
        try other.query("CREATE TABLE notes (text TEXT)")
        try other.query("INSERT INTO notes VALUES ('mine')")
    }

    func foreignDataIsUntouched() throws -> Bool {
        let other = try SQLiteConnection(path: path)
        return try other.query("SELECT count(*) FROM sqlite_master").first?.first?.integer == 1
            && other.query("SELECT text FROM notes") == [[.text("mine")]]
            && other.query("PRAGMA application_id").first?.first?.integer == 0
    }

    func setFormatVersion(_ version: Int) throws {
        try SQLiteConnection(path: path).query("PRAGMA user_version = \(version)")
    }

    func makeFormatOne() throws {
        let connection = try SQLiteConnection(path: path)
        try connection.query("ALTER TABLE results DROP COLUMN build_id")
        try connection.query("PRAGMA user_version = 1")
    }
}
