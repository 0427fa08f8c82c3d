import ArgumentParser
import Foundation
import PerfReport

/// An input or environment problem, reported as one line (argument-parser prefixes "Error: ")
/// and exit code 1.
public struct PerfkitError: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}

let perfkitVersionString = PerfReport.perfkitVersion

/// Writes a message to stderr (progress lines, warnings, errors that bypass argument-parser).
public func printError(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}
