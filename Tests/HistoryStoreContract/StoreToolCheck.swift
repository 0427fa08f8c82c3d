import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What every store must survive with real processes: an executable with perfkit's `history`
/// commands (`perfkit`, `perfkit-history`) killed half-way through an add, and two of them adding at
/// once. Each test target runs these against its own executable and store.
public enum StoreToolCheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case aKilledAddLeavesTheStoreAsItWas
    case twoAddsAtOnceLoseAndDuplicateNothing

    public var testDescription: String { rawValue }

    /// The variable that makes a store SIGKILL its process just before COMMIT.
    public static let killBeforeCommitVariable = "PERFKIT_HISTORY_TEST_KILL_BEFORE_COMMIT"

    /// Runs the check.
    /// - Parameters:
    ///   - tool: The executable; `history add … --store <store>` is run with it.
    ///   - store: Its `--store` argument, a fresh place with nothing there yet.
    ///   - folder: An empty folder for the reports and the processes' output.
    ///   - runCount: How many runs the store holds now (read through a new connection).
    public func run(tool: URL, store: String, folder: URL, runCount: () throws -> Int) throws {
        switch self {
        case .aKilledAddLeavesTheStoreAsItWas: try killedAdd(tool: tool, store: store, folder: folder, runCount)
        case .twoAddsAtOnceLoseAndDuplicateNothing:
            try twoAddsAtOnce(tool: tool, store: store, folder: folder, runCount)
        }
    }

    /// SIGKILL just before COMMIT (a real death of the process half-way through an add of three
    /// reports): the store has what it had, and takes the next add.
    private func killedAdd(tool: URL, store: String, folder: URL, _ runCount: () throws -> Int) throws {
        let reports = try Self.writeReports(4, in: folder)
        let first = try Self.start(tool, ["history", "add", reports[0], "--store", store], output: folder, "first")
        first.process.waitUntilExit()
        #expect(first.process.terminationStatus == 0, "\(first.output())")

        var environment = ProcessInfo.processInfo.environment
        environment[Self.killBeforeCommitVariable] = "1"
        let killed = try Self.start(
            tool, ["history", "add"] + reports[1...] + ["--store", store], environment: environment, output: folder,
            "killed")
        killed.process.waitUntilExit()
        #expect(killed.process.terminationReason == .uncaughtSignal, "\(killed.output())")
        #expect(killed.process.terminationStatus == SIGKILL)
        #expect(try runCount() == 1)

        let after = try Self.start(
            tool, ["history", "add"] + reports[1...] + ["--store", store], output: folder, "after")
        after.process.waitUntilExit()
        #expect(after.process.terminationStatus == 0, "\(after.output())")
        #expect(try runCount() == 4)
    }

    /// Two `history add` at once into one new store, overlapping sets in opposite orders: both
    /// succeed, every report is stored once and counted as added by one of them.
    private func twoAddsAtOnce(tool: URL, store: String, folder: URL, _ runCount: () throws -> Int) throws {
        let reports = try Self.writeReports(40, in: folder)
        let batches = [Array(reports[0..<30]), Array(reports[10..<40].reversed())]
        let adds = try batches.enumerated().map { index, batch in
            try Self.start(tool, ["history", "add"] + batch + ["--store", store], output: folder, "add-\(index)")
        }
        for add in adds { add.process.waitUntilExit() }
        #expect(adds.map(\.process.terminationStatus) == [0, 0], "\(adds.map { $0.output() })")
        #expect(try runCount() == 40)
        // "history: 22 added, 8 already stored: <store>" from each.
        let added = adds.map { add in
            add.output().split(separator: "\n").compactMap { line -> Int? in
                guard line.hasPrefix("history: "), line.contains(" added, ") else { return nil }
                return Int(line.dropFirst("history: ".count).prefix { $0.isNumber })
            }.first
        }
        #expect(added.allSatisfy { $0 != nil }, "\(adds.map { $0.output() })")
        #expect(added.compactMap { $0 }.reduce(0, +) == 40, "each report added by exactly one of them")
    }

    static func writeReports(_ count: Int, in folder: URL) throws -> [String] {
        try (0..<count).map { index in
            let url = folder.appendingPathComponent("report-\(index).json")
            try ContractFixtures.writeReport(minute: index, to: url)
            return url.path
        }
    }

    /// A started process whose output (stdout and stderr together) goes to a file.
    struct Started {
        var process: Process
        var outputFile: URL

        func output() -> String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }
    }

    static func start(
        _ tool: URL, _ arguments: [String], environment: [String: String]? = nil, output folder: URL, _ name: String
    ) throws -> Started {
        let outputFile = folder.appendingPathComponent("\(name).out")
        try Data().write(to: outputFile)
        let handle = try FileHandle(forWritingTo: outputFile)
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        try handle.close()
        return Started(process: process, outputFile: outputFile)
    }
}
