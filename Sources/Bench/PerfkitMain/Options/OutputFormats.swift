import ArgumentParser

/// The value of `--format json,html`: the report files a command writes. Parsed by
/// ``OutputFormat/parseList(_:)`` (so JSON is always among them); argument-parser lists the formats
/// in help and in the error for an unknown one.
public struct OutputFormats: ExpressibleByArgument, Sendable, Equatable {
    public var formats: [OutputFormat]

    public init?(argument: String) {
        guard let formats = try? OutputFormat.parseList(argument) else { return nil }
        self.formats = formats
    }

    public static var allValueStrings: [String] { OutputFormat.allCases.map(\.rawValue) }

    public var defaultValueDescription: String { formats.map(\.rawValue).joined(separator: ",") }
}
