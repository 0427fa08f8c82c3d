import Foundation
import Gzip
import Harness
import PerfReport
import Pprof

/// The pprof pair beside a report for each count regression whose both sides carry a function
/// profile: `profiles/<benchmark>.base.pb.gz` and `.new.pb.gz`, for
/// `go tool pprof -top -diff_base <…>.base.pb.gz <…>.new.pb.gz`.
enum FunctionProfileFiles {
    /// Writes the pairs into `directory/profiles` and returns the files written (none when no
    /// regressed benchmark has a differential).
    static func write(_ report: Report, baseline: Report?, into directory: URL) throws -> [URL] {
        guard let baseline, let comparison = report.comparison else { return [] }
        let regressed = comparison.entries.filter { $0.functionDifferential != nil }.map(\.id)
        guard !regressed.isEmpty else { return [] }
        let profiles = directory.appendingPathComponent("profiles")
        if let problem = ReportWriter.makeDirectories(profiles.path) {
            throw PerfkitError(.cannotWrite, "\(profiles.path): cannot create the profiles directory: \(problem)")
        }
        var written: [URL] = []
        for id in Set(regressed).sorted() {
            let sides = [
                ("base", baseline.benchmarks.first { $0.id == id }?.functionProfile),
                ("new", report.benchmarks.first { $0.id == id }?.functionProfile),
            ]
            for (side, profile) in sides {
                guard let profile else { continue }
                let url = profiles.appendingPathComponent("\(sanitized(id)).\(side).pb.gz")
                let data = try Gzip.compress(
                    pprof(profile, comment: "\(id) (\(side)): instructions per operation").encoded())
                try writeOutput(data, to: url)
                written.append(url)
            }
        }
        return written
    }

    /// The profile as pprof's instructions by function, one caller deep (`FunctionProfile.callerStacks`).
    static func pprof(_ profile: FunctionProfile, comment: String) -> PprofProfile {
        PprofProfile.instructions(stacks: profile.callerStacks(), comment: comment)
    }

    /// A benchmark id as a file name: letters, digits, `-`, `_` and `.` stay, the rest become `_`.
    static func sanitized(_ id: String) -> String {
        String(id.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
    }
}
