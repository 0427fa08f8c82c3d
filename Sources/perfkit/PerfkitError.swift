import ArgumentParser
import Foundation
import PerfReport

/// An input or environment problem, reported as one line (argument-parser prefixes "Error: ")
/// and exit code 1.
struct PerfkitError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }
}

let perfkitVersionString = PerfReport.perfkitVersion

/// Writes a message to stderr (progress lines, warnings, errors that bypass argument-parser).
func printError(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}
