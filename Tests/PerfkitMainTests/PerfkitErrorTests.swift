import Foundation
import PerfReport
import Testing

@testable import PerfkitMain
import ProbeRecords

/// A library error worded for the command line keeps its message and says what kind of failure it
/// is, with the library's error as its cause.
struct PerfkitErrorTests {
    @Test func aReportThatWillNotLoadIsInvalidInput() throws {
        let path = "/nonexistent/perfkit-\(UUID())/report.json"
        let load = try #require(throws: ReportCoding.LoadError.self) {
            try ReportCoding.load(from: URL(fileURLWithPath: path))
        }
        let error = PerfkitError(load)
        #expect(error.kind == .invalidInput)
        #expect(error.description == "\(path): cannot read: no such file")
        #expect((error.cause as? ReportCoding.LoadError)?.kind == .unreadable)
    }

    @Test func aFileThatWillNotWriteIsCannotWrite() throws {
        let path = "/nonexistent/perfkit-\(UUID())/baseline.json"
        let write = try #require(throws: AtomicFile.WriteError.self) {
            try AtomicFile.write(Data("{}".utf8), to: URL(fileURLWithPath: path))
        }
        #expect(write.kind == .cannotCreate)
        #expect(write.errorNumber == ENOENT)
        let error = PerfkitError(write)
        #expect(error.kind == .cannotWrite)
        #expect(error.description.hasPrefix("\(path): cannot create a file in "))
    }
}
