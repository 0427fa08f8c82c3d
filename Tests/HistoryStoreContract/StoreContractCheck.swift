import Foundation
import PerfkitHistory
import Testing

/// What every `ResultsStore` must do, checked the same way on each kind of store: a test target
/// runs every case against its store (`@Test(arguments: StoreContractCheck.allCases)`), so a check
/// added here runs on SQLite and PostgreSQL alike.
public enum StoreContractCheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case aRunComesBackAsItWasAdded
    case theSameRunTwiceIsOneRun
    case machinesAreKeptApart
    case aFailedAddLeavesTheStoreAsItWas
    case anotherProgramsDataIsRefusedAndLeftAlone
    case aNewerFormatIsRefused
    case theFirstFormatIsUpgraded
    case readingAMissingStoreCreatesNothing
    case twoWritersAtOnceLoseAndDuplicateNothing

    public var testDescription: String { rawValue }

    /// Runs the check on a fresh, empty `subject`.
    public func run(on subject: some StoreContractSubject) throws {
        switch self {
        case .aRunComesBackAsItWasAdded: try roundTrip(subject)
        case .theSameRunTwiceIsOneRun: try sameRunTwice(subject)
        case .machinesAreKeptApart: try machinesApart(subject)
        case .aFailedAddLeavesTheStoreAsItWas: try failedAdd(subject)
        case .anotherProgramsDataIsRefusedAndLeftAlone: try foreignData(subject)
        case .aNewerFormatIsRefused: try newerFormat(subject)
        case .theFirstFormatIsUpgraded: try firstFormat(subject)
        case .readingAMissingStoreCreatesNothing: try missingStore(subject)
        case .twoWritersAtOnceLoseAndDuplicateNothing: try twoWriters(subject)
        }
    }

    /// The order of a run's results is the store's; their content is not.
    static func sortedResults(_ run: HistoryRun) -> HistoryRun {
        var run = run
        run.results.sort { ($0.benchmark, $0.metric.rawValue) < ($1.benchmark, $1.metric.rawValue) }
        return run
    }

    private func roundTrip(_ subject: some StoreContractSubject) throws {
        let full = ContractFixtures.run(1)
        let sparse = ContractFixtures.sparseRun(1)
        let store = try subject.open(create: true)
        #expect(store.location == subject.location)
        #expect(try store.add([sparse, full]).map(\.added) == [true, true])
        // Read back through another connection: what was committed, not what one connection remembers.
        let stored = try subject.open(create: false).runs()
        #expect(stored.map(Self.sortedResults) == [full, sparse].map(Self.sortedResults), "oldest first")
    }

    private func sameRunTwice(_ subject: some StoreContractSubject) throws {
        let run = ContractFixtures.run(1)
        let store = try subject.open(create: true)
        let first = try store.add([run, run])
        #expect(first.map(\.added) == [true, false], "twice in one add")
        let again = try subject.open(create: true).add([ContractFixtures.run(2), run])
        #expect(again.map(\.added) == [true, false])
        #expect(again.map(\.digest) == [ContractFixtures.run(2).digest, run.digest], "the order given")
        let addedAt = try #require(again[1].alreadyAddedAt)
        #expect(first[1].alreadyAddedAt == addedAt, "both name the time it was first added")
        #expect(abs(addedAt.timeIntervalSinceNow) < 600)
        #expect(try store.runs().map(\.digest) == [run.digest, ContractFixtures.run(2).digest])
    }

    private func machinesApart(_ subject: some StoreContractSubject) throws {
        var named = ContractFixtures.run(1)
        named.digest = "named-1"
        named.machine.name = "ci"
        named.machine.host = "runner-81"
        var renamedHost = ContractFixtures.run(2)
        renamedHost.digest = "named-2"
        renamedHost.machine.name = "ci"
        renamedHost.machine.host = "runner-82"
        let store = try subject.open(create: true)
        _ = try store.add([
            ContractFixtures.run(1), ContractFixtures.run(1, machine: ContractFixtures.laptop), named, renamedHost,
        ])
        let runs = try subject.open(create: false).runs()
        #expect(runs.count == 4)
        #expect(Set(runs.map(\.machine.key)) == [ContractFixtures.machine.key, ContractFixtures.laptop.key, "name=ci"])
        #expect(Set(runs.map(\.machine)).isSuperset(of: [ContractFixtures.machine, ContractFixtures.laptop]))
        // A named machine is one machine whatever the host of each run.
        #expect(runs.filter { $0.machine.key == "name=ci" }.map(\.machine.label) == ["ci", "ci"])
    }

    /// A statement failing half-way through (the second run's value is NaN, refused by the store)
    /// leaves nothing of the first run; the same store takes the next add.
    private func failedAdd(_ subject: some StoreContractSubject) throws {
        let store = try subject.open(create: true)
        _ = try store.add([ContractFixtures.run(1)])
        var bad = ContractFixtures.run(3, machine: ContractFixtures.laptop)
        bad.results[1].value = .nan
        let error = try #require(throws: StoreError.self) { try store.add([ContractFixtures.run(2), bad]) }
        #expect(error.kind == .failed)
        #expect(error.description.hasPrefix(subject.location + ": "))
        #expect(!error.description.contains("\n"), "one line: \(error.description)")
        #expect(try subject.open(create: false).runs().map(\.digest) == [ContractFixtures.run(1).digest])
        #expect(try store.add([ContractFixtures.run(2)]).map(\.added) == [true])
        #expect(try subject.open(create: false).runs().count == 2)
    }

    private func foreignData(_ subject: some StoreContractSubject) throws {
        try subject.writeForeignData()
        for create in [true, false] {
            let error = try #require(throws: StoreError.self) { try subject.open(create: create) }
            #expect(error.kind == .notAHistory)
            #expect(error.description.hasPrefix("\(subject.location): not a perfkit history"), "\(error)")
            #expect(!error.description.contains("\n"), "one line: \(error.description)")
        }
        #expect(try subject.foreignDataIsUntouched())
    }

    private func newerFormat(_ subject: some StoreContractSubject) throws {
        _ = try subject.open(create: true).add([ContractFixtures.run(1)])
        try subject.setFormatVersion(9)
        for create in [true, false] {
            let error = try #require(throws: StoreError.self) { try subject.open(create: create) }
            #expect(error.kind == .newerFormat(9))
            #expect(error.description.hasPrefix("\(subject.location): written by a newer perfkit"), "\(error)")
        }
    }

    /// A store the first perfkit wrote (no build IDs) keeps its runs and takes runs with them.
    private func firstFormat(_ subject: some StoreContractSubject) throws {
        var old = ContractFixtures.run(1)
        for index in old.results.indices { old.results[index].executableBuildID = nil }
        _ = try subject.open(create: true).add([old])
        try subject.makeFormatOne()
        let store = try subject.open(create: false)
        #expect(try store.runs().map(Self.sortedResults) == [old].map(Self.sortedResults))
        let new = ContractFixtures.run(2)
        #expect(try store.add([new]).map(\.added) == [true])
        #expect(
            try subject.open(create: false).runs().map(Self.sortedResults) == [old, new].map(Self.sortedResults))
    }

    private func missingStore(_ subject: some StoreContractSubject) throws {
        let error = try #require(throws: StoreError.self) { try subject.open(create: false) }
        #expect(error.kind == .notFound)
        #expect(error.description.hasPrefix(subject.location + ": "))
        #expect(try subject.isEmpty())
    }

    /// Two writers, each with its own connection, opening the empty place at once and adding
    /// overlapping sets in opposite orders, a few runs per transaction: every run is stored once,
    /// and reported as added by exactly one of them.
    private func twoWriters(_ subject: some StoreContractSubject) throws {
        let runs = (0..<40).map { ContractFixtures.run($0) }
        let batches = [Array(runs[0..<30]), Array(runs[10..<40].reversed())]
        let outcomes = Locked([StoreAddOutcome]())
        let failures = Locked([String]())
        let finished = DispatchGroup()
        for batch in batches {
            finished.enter()
            // Threads of their own: both writers block in their store at once, whatever the pool's width.
            let thread = Thread {
                defer { finished.leave() }
                do {
                    let store = try subject.open(create: true)
                    for start in stride(from: 0, to: batch.count, by: 6) {
                        let added = try store.add(Array(batch[start..<min(start + 6, batch.count)]))
                        outcomes.withLock { $0 += added }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            thread.start()
        }
        finished.wait()
        #expect(failures.withLock { $0 } == [])
        let added = outcomes.withLock { $0 }.filter(\.added).map(\.digest)
        #expect(added.count == runs.count, "each run added by exactly one writer")
        #expect(Set(added) == Set(runs.map(\.digest)))
        #expect(try subject.open(create: false).runs().map(\.digest).sorted() == runs.map(\.digest).sorted())
    }
}
