import ArgumentParser
import Foundation
import PerfReport
import ProbeRecords

/// A command's failure: a kind to switch on, the one-line message (argument-parser prefixes
/// "Error: "; exit code 1), and the library error behind it where there is one.
public struct PerfkitError: Error, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// A file, value or situation given is wrong: a missing or malformed input, options that do
        /// not go together, a baseline of another package, a debug build to benchmark.
        case invalidInput
        /// An output (report directory, baseline, summary, image, profile) cannot be written.
        case cannotWrite
        /// A tool perfkit runs is not installed (valgrind, git, swift, the interposer, a symbolizer).
        case missingTool
        /// A process perfkit started failed: a build, a measuring run, a benchmark executable.
        case runFailed
        /// The machine lacks what the command needs (a memory cgroup it may create, …).
        case unsupported
    }

    public var kind: Kind
    public var message: String
    /// The library error this one words for the command line, if any.
    public var cause: (any Error)?

    public var description: String { message }

    public init(_ kind: Kind, _ message: String, cause: (any Error)? = nil) {
        self.kind = kind
        self.message = message
        self.cause = cause
    }

    /// A report that could not be loaded: the input is wrong.
    public init(_ error: ReportCoding.LoadError) { self.init(.invalidInput, error.description, cause: error) }

    /// A file that could not be written.
    public init(_ error: AtomicFile.WriteError) { self.init(.cannotWrite, error.description, cause: error) }
}

/// Writes a command's output file atomically (``AtomicFile``); a failure is the `cannotWrite` error
/// that names the file. The one place a write failure becomes the command's error.
package func writeOutput(_ data: Data, to url: URL) throws {
    do {
        try AtomicFile.write(data, to: url)
    } catch let error as AtomicFile.WriteError {
        throw PerfkitError(error)
    }
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
