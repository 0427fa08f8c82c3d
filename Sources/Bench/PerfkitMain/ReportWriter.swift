import Foundation
import PerfReport

/// Creates a report directory and writes each requested format into it atomically.
public struct ReportWriter: Sendable {
    public var directory: URL

    /// Makes sure the directory exists and can be written before any benchmark runs, so a bad
    /// `--output` fails in a second rather than after the whole suite.
    public static func prepare(outputRoot: String, timestamp: Date) throws -> ReportWriter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH-mm-ss'Z'"
        let root = URL(fileURLWithPath: outputRoot)
        var directory = root.appendingPathComponent(formatter.string(from: timestamp))
        var suffix = 1
        while FileManager.default.fileExists(atPath: directory.path) {
            suffix += 1
            directory = root.appendingPathComponent(formatter.string(from: timestamp) + "-\(suffix)")
        }
        if let problem = makeDirectories(directory.path) {
            throw PerfkitError(.cannotWrite, "\(directory.path): cannot create the report directory: \(problem)")
        }
        guard access(directory.path, W_OK) == 0 else {
            throw PerfkitError(.cannotWrite, "\(directory.path): the report directory is not writable")
        }
        return ReportWriter(directory: directory)
    }

    /// - Parameter linkingHistory: the history page will be written into the directory too (see
    ///   `RunHistoryOptions.writePage`): the HTML report links each benchmark's trend there.
    public func write(_ report: Report, formats: [OutputFormat], baseline: Report?, linkingHistory: Bool = false)
        throws -> [URL]
    {
        var written: [URL] = []
        for format in formats {
            let url = directory.appendingPathComponent(format.fileName)
            try writeOutput(try format.render(report, baseline: baseline, linkingHistory: linkingHistory), to: url)
            written.append(url)
        }
        return written
    }

    /// `mkdir -p`, returning the failing component and errno text instead of Foundation's
    /// generic "the operation could not be completed".
    static func makeDirectories(_ path: String) -> String? {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                return "\(current): \(String(cString: strerror(errno)))"
            }
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return "not a directory"
        }
        return nil
    }
}
