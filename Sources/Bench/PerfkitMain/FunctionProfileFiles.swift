import Foundation
import PerfkitGzip
import Harness
import PerfReport
import PerfkitPprof

/// The pprof pair beside a report for each regression whose both sides carry a function profile:
/// `profiles/<benchmark>.base.pb.gz` and `.new.pb.gz` (instructions), `.time.base.pb.gz` and
/// `.time.new.pb.gz` (sampled CPU time, ns), for `go tool pprof -top -diff_base <base> <new>`.
enum FunctionProfileFiles {
    /// Writes the pairs into `directory/profiles` and returns the files written (none when no
    /// regressed benchmark has a differential).
    static func write(_ report: Report, baseline: Report?, into directory: URL) throws -> [URL] {
        guard let baseline, let comparison = report.comparison else { return [] }
        let counted = Set(comparison.entries.filter { $0.functionDifferential != nil }.map(\.id))
        let timed = Set(comparison.entries.filter { $0.timeDifferential != nil }.map(\.id))
        guard !counted.isEmpty || !timed.isEmpty else { return [] }
        let profiles = directory.appendingPathComponent("profiles")
        if let problem = ReportWriter.makeDirectories(profiles.path) {
            throw PerfkitError(.cannotWrite, "\(profiles.path): cannot create the profiles directory: \(problem)")
        }
        var written: [URL] = []
        for id in counted.union(timed).sorted() {
            let base = baseline.benchmarks.first { $0.id == id }
            let new = report.benchmarks.first { $0.id == id }
            var sides: [(name: String, profile: FunctionProfile?, sampled: Bool)] = []
            if counted.contains(id) {
                sides += [("base", base?.functionProfile, false), ("new", new?.functionProfile, false)]
            }
            if timed.contains(id) {
                sides += [("time.base", base?.timeProfile, true), ("time.new", new?.timeProfile, true)]
            }
            for (side, profile, sampled) in sides {
                guard let profile else { continue }
                let url = profiles.appendingPathComponent("\(sanitized(id)).\(side).pb.gz")
                let comment = "\(id) (\(side)): \(sampled ? "sampled CPU ns" : "instructions") per operation"
                let encoded = sampled ? timePprof(profile, comment: comment) : pprof(profile, comment: comment)
                try writeOutput(try Gzip.compress(encoded.encoded()), to: url)
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

    /// A time profile as pprof's CPU nanoseconds by function, one caller deep.
    static func timePprof(_ profile: FunctionProfile, comment: String) -> PprofProfile {
        PprofProfile.cpuTime(stacks: profile.callerStacks(), comment: comment)
    }

    /// A benchmark id as a file name: letters, digits, `-`, `_` and `.` stay, the rest become `_`.
    static func sanitized(_ id: String) -> String {
        String(id.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
    }
}
