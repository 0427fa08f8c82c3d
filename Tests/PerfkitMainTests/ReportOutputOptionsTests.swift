import ArgumentParser
import Testing

@testable import PerfkitMain

/// `--format` and `--output` of the commands that write a report directory, parsed as the
/// commands parse them.
@Suite struct ReportOutputOptionsTests {
    enum JSONAndMarkdown: DefaultReportFormats {
        static var formats: OutputFormats { OutputFormats(argument: "markdown")! }
    }

    @Test func theDefaultsAreTheCommandsOwn() throws {
        let plain = try ReportOutputOptions<JSONOnly>.parse([])
        #expect(plain.formats == [.json])
        #expect(plain.output == "Reports")
        #expect(try ReportOutputOptions<JSONAndMarkdown>.parse([]).formats == [.json, .markdown])
        #expect(ReportOutputOptions<JSONAndMarkdown>.helpMessage().contains("default: json,markdown"))
    }

    @Test func jsonIsAlwaysWrittenAndEachFormatOnce() throws {
        let options = try ReportOutputOptions<JSONOnly>.parse([
            "--format", "html, markdown,html", "--output", "/tmp/r",
        ])
        #expect(options.formats == [.json, .html, .markdown])
        #expect(options.output == "/tmp/r")
        #expect(OutputFormats(argument: "")?.formats == [.json])
    }

    @Test func anUnknownFormatIsRefusedWithTheKnownOnes() {
        #expect(OutputFormats(argument: "json,svg") == nil)
        do {
            _ = try ReportOutputOptions<JSONOnly>.parse(["--format", "svg"])
            Issue.record("--format svg was accepted")
        } catch {
            #expect(
                ReportOutputOptions<JSONOnly>.message(for: error)
                    == "The value 'svg' is invalid for '--format <format>'. "
                    + "Please provide one of 'json', 'html', 'google-benchmark' or 'markdown'.")
        }
    }
}
