import Foundation
import ProbeRecords

/// Reading and writing reports: sorted keys, ISO-8601 dates, atomic writes, and errors that name
/// the file and the problem in one line.
public enum ReportCoding {
    /// Why a report could not be loaded: a kind to switch on, the file, the one-line problem, and
    /// the decoding error behind a schema mismatch.
    public struct LoadError: Error, CustomStringConvertible {
        public enum Kind: Sendable, Equatable {
            /// The file cannot be read (missing, a directory, no permission).
            case unreadable
            /// Not JSON at all.
            case notJSON
            /// JSON, but not a perfkit report (no object, no schema version).
            case notAReport
            /// A report of another schema version.
            case unsupportedVersion(Int)
            /// A report of this version whose content does not match the schema.
            case schemaMismatch
        }

        public var kind: Kind
        public var path: String
        public var problem: String
        /// The underlying error (the decoder's, for `schemaMismatch` and `notJSON`).
        public var cause: (any Error)?
        public var description: String { "\(path): \(problem)" }

        init(_ kind: Kind, path: String, problem: String, cause: (any Error)? = nil) {
            self.kind = kind
            self.path = path
            self.problem = problem
            self.cause = cause
        }
    }

    static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        // Millisecond precision: stall start times on a timeline need better than whole seconds.
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(Self.timestampStyle))
        }
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let date = try? Self.timestampStyle.parse(text) { return date }
            if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\"\(text)\" is not an ISO-8601 timestamp")
        }
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }

    public static func encode(_ report: Report) throws -> Data {
        var data = try encoder().encode(report)
        data.append(0x0A)
        return data
    }

    public static func write(_ report: Report, to url: URL) throws {
        try AtomicFile.write(try encode(report), to: url)
    }

    /// Loads a report, checking its schema version before decoding the rest so that a report
    /// from another version gets a clear message instead of a missing-key error.
    public static func load(from url: URL) throws -> Report {
        let path = url.path
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw LoadError(.unreadable, path: path, problem: "cannot read: \(readProblem(path))", cause: error)
        }
        return try decode(data, path: path)
    }

    public static func decode(_ data: Data, path: String) throws -> Report {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw LoadError(
                .notJSON, path: path, problem: "not valid JSON: \(jsonPosition(of: error, in: data))", cause: error)
        }
        guard let dictionary = object as? [String: Any] else {
            throw LoadError(
                .notAReport, path: path, problem: "not a perfkit report: the top level is not a JSON object")
        }
        guard let version = dictionary["schemaVersion"] as? Int else {
            throw LoadError(.notAReport, path: path, problem: "not a perfkit report: no integer \"schemaVersion\"")
        }
        let readable = Report.readableSchemaVersions
        guard readable.contains(version) else {
            throw LoadError(
                .unsupportedVersion(version), path: path,
                problem: "schemaVersion \(version) is not supported "
                    + "(this perfkit reads \(readable.lowerBound) to \(readable.upperBound))")
        }
        do {
            var report = try decoder().decode(Report.self, from: data)
            report.schemaVersion = Report.currentSchemaVersion
            return report
        } catch let error as DecodingError {
            throw LoadError(
                .schemaMismatch, path: path, problem: "does not match the report schema: \(describe(error))",
                cause: error)
        }
    }

    static func readProblem(_ path: String) -> String {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) { return "no such file" }
        if isDirectory.boolValue { return "is a directory" }
        if !FileManager.default.isReadableFile(atPath: path) { return "permission denied" }
        return "read failed"
    }

    /// Describes a decoding error as `at <coding path>: <what>`.
    public static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }
            return keys.isEmpty ? "top level" : keys.joined()
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "at \(path(context)): missing key \"\(key.stringValue)\""
        case .typeMismatch(let type, let context):
            return "at \(path(context)): expected \(type)"
        case .valueNotFound(let type, let context):
            return "at \(path(context)): expected \(type), found null"
        case .dataCorrupted(let context):
            return "at \(path(context)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    /// Foundation's parser says "around character N" (a byte offset); add the line and column a
    /// person would look for, and keep it on one line.
    static func jsonPosition(of error: Error, in data: Data) -> String {
        if data.isEmpty { return "the file is empty" }
        let nsError = error as NSError
        var text = ((nsError.userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)")
            .replacingOccurrences(of: "\n", with: " ")
        if text.hasSuffix(".") { text.removeLast() }
        guard let range = text.range(of: #"character \d+"#, options: .regularExpression),
            let offset = Int(text[range].dropFirst("character ".count))
        else { return text }
        var line = 1
        var column = 1
        for byte in data.prefix(offset) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return "\(text) (line \(line), column \(column))"
    }
}
