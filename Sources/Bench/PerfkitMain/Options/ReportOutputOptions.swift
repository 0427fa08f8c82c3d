import ArgumentParser

/// Where `run`, `merge`, `startup` and `watch-demo` write their report, and in which formats: one
/// definition of `--format` and `--output` for all of them. `Defaults` is what a command writes
/// without `--format` (and what its help shows): a type parameter, as argument-parser makes an
/// option group with `init()`.
public struct ReportOutputOptions<Defaults: DefaultReportFormats>: ParsableArguments {
    @Option(help: "Comma-separated output formats. JSON is always written.")
    public var format: OutputFormats = Defaults.formats

    @OptionGroup public var directory: ReportDirectoryOption

    public init() {}

    public var formats: [OutputFormat] { format.formats }

    public var output: String { directory.output }
}

/// The formats a command writes when `--format` is not given.
public protocol DefaultReportFormats {
    static var formats: OutputFormats { get }
}

/// JSON only: what `run`, `merge` and `startup` write without `--format`.
public enum JSONOnly: DefaultReportFormats {
    public static var formats: OutputFormats { OutputFormats(argument: "json")! }
}
