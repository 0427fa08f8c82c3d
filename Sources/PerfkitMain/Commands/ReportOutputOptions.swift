import ArgumentParser

/// Where `run` and `merge` write their report, and in which formats.
struct ReportOutputOptions: ParsableArguments {
    @Option(help: "Comma-separated output formats: json, html, google-benchmark, markdown. JSON is always written.")
    var format = "json"

    @Option(help: "Directory under which the timestamped report directory is created.")
    var output = "Reports"

    func validate() throws {
        _ = try formats()
    }

    func formats() throws -> [OutputFormat] { try OutputFormat.parseList(format) }
}
