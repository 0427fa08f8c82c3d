import Foundation
import Testing

import ProbeRecords

@Suite struct AtomicFileTests {
    func temporaryDirectory() throws -> URL {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("perfkit-atomic-\(UUID())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func replacesContentAndLeavesNoTemporaryFiles() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("report.json")
        try AtomicFile.write(Data("first".utf8), to: target)
        try AtomicFile.write(Data("second".utf8), to: target)
        #expect(try String(contentsOf: target, encoding: .utf8) == "second")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["report.json"])
    }

    @Test func failureKeepsTheOldFileAndNamesThePath() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A file where a directory is expected: creating the temporary file must fail.
        let blocker = directory.appendingPathComponent("not-a-directory")
        try AtomicFile.write(Data("keep".utf8), to: blocker)
        let target = blocker.appendingPathComponent("report.json")
        let error = try #require(throws: AtomicFile.WriteError.self) {
            try AtomicFile.write(Data("new".utf8), to: target)
        }
        #expect(error.description.hasPrefix(target.path + ": cannot create a file in"))
        #expect(try String(contentsOf: blocker, encoding: .utf8) == "keep")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["not-a-directory"])
    }
}
