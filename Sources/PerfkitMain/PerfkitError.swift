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
/// With write(2) rather than `FileHandle`, whose `write` traps when stderr is a closed pipe (a
/// plugin's SwiftPM gone after Ctrl-C); a lost message must not cost the report being written.
public func printError(_ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }
        bytes = bytes.dropFirst(written)
    }
}
