import Foundation
import PerfReport

/// What makes two reports the same report for the history: their content, encoded the one way
/// `ReportCoding` writes it (sorted keys), so a copy or a re-indented file is recognised too.
///
/// Two FNV-1a hashes with different offsets (128 bits): a duplicate check, not a defence against
/// someone crafting a collision (no cryptographic hash on Linux without another dependency).
enum ReportDigest {
    static func digest(of report: Report) throws -> String {
        let bytes = try ReportCoding.encode(report)
        var first: UInt64 = 0xcbf2_9ce4_8422_2325
        var second: UInt64 = 0x6c62_272e_07bb_0142
        for byte in bytes {
            first = (first ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            second = (second ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            second = second &+ (second >> 29)
        }
        return String(format: "%016llx%016llx", first, second)
    }
}
