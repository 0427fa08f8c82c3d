import Testing

@testable import PerfkitMain

/// The one list of formats: each has a file of its own, and a list names them all.
@Suite struct OutputFormatRegistryTests {
    @Test func everyFormatHasItsOwnFile() {
        let files = OutputFormat.allCases.map(\.fileName)
        #expect(Set(files).count == files.count)
        #expect(OutputFormat.json.fileName == "report.json")
    }

    @Test func theListAlwaysStartsWithJSONAndRejectsUnknownNames() throws {
        #expect(try OutputFormat.parseList("html, markdown,html") == [.json, .html, .markdown])
        #expect(throws: (any Error).self) { try OutputFormat.parseList("pdf") }
        #expect(OutputFormat.names == "json, html, google-benchmark, markdown")
    }
}
