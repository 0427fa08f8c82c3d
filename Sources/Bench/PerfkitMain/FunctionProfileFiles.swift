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

    /// For a command whose report is a file rather than a report directory (`compare`, `baseline
    /// update`): writes the pairs of `comparison` into `profiles/` beside `reportFile`, as `run` does
    /// beside its report.json, and returns what to print: each path, why none, or why writing failed.
    static func write(_ comparison: Comparison, baseline: Report, current: Report, beside reportFile: URL) -> [String] {
        var current = current
        current.comparison = comparison
        do {
            let written = try write(current, baseline: baseline, into: reportFile.deletingLastPathComponent())
            return written.map { "profile: \($0.path)" } + unwritten(comparison, baseline: baseline, current: current)
        } catch {
            return ["no pprof pair written: \(error)"]
        }
    }

    /// One line for each regressed benchmark that carries a profile on both sides but gets no pair:
    /// only an instruction count regression has a differential, so another one is said, not silent.
    static func unwritten(_ comparison: Comparison, baseline: Report, current: Report) -> [String] {
        let paired = Set(comparison.entries.filter { $0.functionDifferential != nil }.map(\.id))
        let profiled = { (report: Report, id: String) in
            report.benchmarks.contains { $0.id == id && $0.functionProfile != nil }
        }
        let unpaired = comparison.entries.filter {
            $0.verdict == .regressed && !paired.contains($0.id) && profiled(baseline, $0.id) && profiled(current, $0.id)
        }
        return unpaired.map {
            "no pprof pair for \($0.id): it regressed in \($0.metric.rawValue), and only an instructions "
                + "regression gets one (the count gate: run --baseline --gate-metric instructions, or ci)"
        }
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
