import Foundation
import PerfReport
import Testing

@testable import History

/// The SQLite store on real files: what it keeps, what it refuses, and that an add is all or nothing.
struct SQLiteResultsStoreTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("history-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func path(_ name: String = "history.sqlite") -> String { folder.appendingPathComponent(name).path }

    @Test func aRunComesBackAsItWasAdded() throws {
        let run = try HistoryRun(
            report: HistoryFixtures.report(commit: HistoryFixtures.commit(3)), commitPosition: 3, branch: "main")
        let store = try SQLiteResultsStore(path: path("sub/folder/h.sqlite"), create: true)
        #expect(try store.add([run]) == [StoreAddOutcome(digest: run.digest, alreadyAddedAt: nil)])
        let stored = try SQLiteResultsStore(path: path("sub/folder/h.sqlite"), create: false).runs()
        #expect(stored.count == 1)
        var expected = run
        expected.results.sort { ($0.benchmark, $0.metric.rawValue) < ($1.benchmark, $1.metric.rawValue) }
        #expect(stored.first == expected)
        #expect(Set(run.results.map(\.metric)) == [.wall, .cpu, .instructions])
    }

    @Test func theSameReportTwiceIsOneRun() throws {
        let report = HistoryFixtures.report(commit: HistoryFixtures.commit(1))
        let store = try SQLiteResultsStore(path: path(), create: true)
        let first = try store.add([try HistoryRun(report: report)])
        #expect(first.allSatisfy { $0.added })
        // Again, and twice within one add.
        let again = try store.add([try HistoryRun(report: report), try HistoryRun(report: report)])
        #expect(again.allSatisfy { !$0.added })
        #expect(try store.runs().count == 1)
    }

    @Test func anotherMachinesReportIsKeptApart() throws {
        let store = try SQLiteResultsStore(path: path(), create: true)
        _ = try store.add([
            try HistoryRun(report: HistoryFixtures.report(commit: HistoryFixtures.commit(1))),
            try HistoryRun(report: HistoryFixtures.report(commit: HistoryFixtures.commit(1), host: "laptop")),
        ])
        let runs = try store.runs()
        #expect(runs.count == 2)
        #expect(Set(runs.map(\.machine.key)).count == 2)
        // A named machine is one machine whatever its host.
        let named = try HistoryRun(
            report: HistoryFixtures.report(commit: HistoryFixtures.commit(2), host: "runner-81"), machineName: "ci")
        #expect(named.machine.key == "name=ci")
        #expect(named.machine.label == "ci")
    }

    @Test func aDirtyCommitIsRecordedAsSuch() throws {
        let run = try HistoryRun(report: HistoryFixtures.report(commit: HistoryFixtures.commit(4) + "-dirty"))
        #expect(run.commit == HistoryFixtures.commit(4))
        #expect(run.dirty)
    }

    /// A statement failing half-way (the second run's value is NaN, which SQLite stores as NULL
    /// against a NOT NULL column) leaves nothing of the first.
    @Test func aFailedAddLeavesTheStoreAsItWas() throws {
        let store = try SQLiteResultsStore(path: path(), create: true)
        var bad = HistoryFixtures.run(commit: 2, ["Demo/work/sum": [.wall: 10]])
        bad.results[0].value = .nan
        #expect(throws: StoreError.self) {
            try store.add([HistoryFixtures.run(commit: 1, ["Demo/work/sum": [.wall: 10]]), bad])
        }
        #expect(try store.runs().isEmpty)
        _ = try store.add([HistoryFixtures.run(commit: 1, ["Demo/work/sum": [.wall: 10]])])
        #expect(try store.runs().count == 1)
    }

    @Test func aFileThatIsNotADatabaseIsRefused() throws {
        try Data("this is not SQLite, it is a text file with enough bytes to look like a header".utf8)
            .write(to: URL(fileURLWithPath: path()))
        let error = try #require(throws: StoreError.self) { try SQLiteResultsStore(path: path(), create: true) }
        #expect(error.kind == .notAHistory)
        #expect(error.description.hasPrefix(path() + ": not an SQLite database"))
        #expect(!error.description.contains("\n"))
    }

    @Test func anotherProgramsDatabaseIsRefusedAndLeftAlone() throws {
        do {
            let other = try SQLiteConnection(path: path())
            try other.query("CREATE TABLE notes (text TEXT)")
            try other.query("INSERT INTO notes VALUES ('mine')")
        }
        let error = try #require(throws: StoreError.self) { try SQLiteResultsStore(path: path(), create: true) }
        #expect(error.kind == .notAHistory)
        #expect(error.description == "\(path()): not a perfkit history (an SQLite database of another program)")
        let untouched = try SQLiteConnection(path: path()).query("SELECT count(*) FROM sqlite_master")
        #expect(untouched.first?.first?.integer == 1)
    }

    @Test func aNewerFormatIsRefused() throws {
        _ = try SQLiteResultsStore(path: path(), create: true)
        try SQLiteConnection(path: path()).query("PRAGMA user_version = 9")
        let error = try #require(throws: StoreError.self) { try SQLiteResultsStore(path: path(), create: false) }
        #expect(error.kind == .newerFormat(9))
    }

    @Test func readingAStoreThatDoesNotExistSaysSoAndCreatesNothing() throws {
        let error = try #require(throws: StoreError.self) { try SQLiteResultsStore(path: path(), create: false) }
        #expect(error.kind == .notFound)
        #expect(!FileManager.default.fileExists(atPath: path()))
    }
}
