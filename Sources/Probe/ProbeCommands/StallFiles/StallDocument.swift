import PerfkitMain
import Foundation
import PerfReport
import ProbeRecords

/// Stalls as read from a file: either a perfkit report (its `stalls`) or the JSON-lines file a
/// Probe watchdog appends to (one `StallRecord` per line). Written back in the same form.
enum StallDocument {
    case report(Report)
    case jsonLines([StallRecord])

    var stalls: [StallRecord] {
        switch self {
        case .report(let report): return report.stalls ?? []
        case .jsonLines(let records): return records
        }
    }

    func replacingStalls(_ stalls: [StallRecord]) -> StallDocument {
        switch self {
        case .report(var report):
            report.stalls = stalls
            return .report(report)
        case .jsonLines:
            return .jsonLines(stalls)
        }
    }

    /// A report is a single JSON object with a `schemaVersion`; anything else is read as JSON lines.
    /// Reads `path`; what was read despite a problem (a torn last line) is added to `warnings`.
    static func load(path: String, warnings: inout [String]) throws -> StallDocument {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            throw PerfkitError(
                .invalidInput,
                "\(path): cannot read: \(!exists ? "no such file" : isDirectory.boolValue ? "is a directory" : "read failed")"
            )
        }
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            throw PerfkitError(.invalidInput, "\(path): the file is empty")
        }
        if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], object["schemaVersion"] != nil
        {
            return .report(try ReportCoding.decode(data, path: path))
        }
        let decoder = ReportCoding.decoder()  // reads both Probe's whole-second and the report's millisecond dates
        var records: [StallRecord] = []
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() {
            guard line.contains(where: { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 }) else { continue }
            do {
                records.append(try decoder.decode(StallRecord.self, from: Data(line)))
            } catch let error as DecodingError {
                let notJSON: Bool
                if case .dataCorrupted(let context) = error, context.codingPath.isEmpty {
                    notJSON = true
                } else {
                    notJSON = false
                }
                // A writer killed mid-record leaves a last line cut short, before its newline: the
                // records before it are whole, and are read. A broken line anywhere else, or one
                // that ends with its newline, was written whole: an error.
                if notJSON, index == lines.count - 1, !records.isEmpty {
                    warnings.append(
                        "\(path): line \(index + 1): incomplete last record (cut short as the writer stopped?); read the \(records.count) complete record\(records.count == 1 ? "" : "s") before it"
                    )
                    break
                }
                let problem = notJSON ? "not valid JSON" : "not a stall record (\(ReportCoding.describe(error)))"
                throw PerfkitError(
                    .invalidInput,
                    "\(path): line \(index + 1): \(problem); expected a perfkit report or Probe JSON lines")
            }
        }
        return .jsonLines(records)
    }

    /// The same form it was read in: a pretty report, or one compact record per line.
    func encoded() throws -> Data {
        switch self {
        case .report(let report):
            return try ReportCoding.encode(report)
        case .jsonLines(let records):
            let encoder = ReportCoding.encoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            var data = Data()
            for record in records {
                data.append(try encoder.encode(record))
                data.append(0x0A)
            }
            return data
        }
    }
}
