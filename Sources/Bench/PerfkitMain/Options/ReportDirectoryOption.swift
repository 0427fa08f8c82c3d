import ArgumentParser

/// `--output`: the folder a command makes its timestamped report directory in
/// (`Reports/2025-01-31T12-00-00Z/`), shared by every command that writes one.
public struct ReportDirectoryOption: ParsableArguments {
    @Option(help: "Directory under which the timestamped report directory is created.")
    public var output = "Reports"

    public init() {}
}
