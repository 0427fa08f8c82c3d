import Foundation
import Harness
import PerfReport

/// `run --processes N`: the same measurement in N processes of this executable, one after
/// another, merged into one report whose samples say which process took them.
///
/// Sequential rather than side by side: two processes at once would share the machine's cores
/// and measure each other. Each child is this command line again (its options from the one place
/// the user gave them) with `--child-report-directory`, which makes it measure and write a JSON
/// report into a temporary folder that goes away with it; the parent compares and writes what the
/// user asked for.
struct ProcessRuns {
    var count: Int
    /// The benchmarks to measure instead of the command line's `--filter` (a later `--filter` wins).
    var filter: String? = nil
    /// Whether the first process takes time profiles although the command line does not say
    /// `--profile` (a baseline's default, RunCommand.profilesByDefault).
    var profileFirst = false
    /// The executable measured: this one, or the baseline's build (`--baseline-binary`).
    var executable = PerfkitProcess.executable
    /// The command line each child gets before its report folder and filter: this process's own,
    /// unless given (the gate's later looks give only the measuring options, which a baseline's
    /// older build knows too).
    var arguments: [String]? = nil
    /// Whether each child hashes with Swift's one fixed seed (`SWIFT_DETERMINISTIC_HASHING=1`) rather
    /// than a seed of its own: a baseline's few processes that tell whether the seed is what moves a
    /// far-spread benchmark (``Report/fixedHashSeedProcesses``).
    var fixedHashSeed = false

    /// What each child runs: this process's arguments, then where its report goes. Only the first
    /// takes time profiles (`--profile`, or `profileFirst`): the merged report keeps the first process's.
    func childArguments(reportDirectory: URL, index: Int = 0) -> [String] {
        childArguments(
            reportDirectory: reportDirectory, index: index,
            arguments: arguments ?? Array(CommandLine.arguments.dropFirst()))
    }

    func childArguments(reportDirectory: URL, index: Int = 0, arguments: [String]) -> [String] {
        arguments.filter { index == 0 || $0 != "--profile" } + (index == 0 && profileFirst ? ["--profile"] : [])
            + ["--child-report-directory", reportDirectory.path] + (filter.map { ["--filter", $0] } ?? [])
    }

    /// Measures `count` processes. Ctrl-C stops the running one; the processes that finished are
    /// merged and the report is marked incomplete (none finished: the interruption is thrown on).
    func measure() throws -> Report {
        let work = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("perfkit-processes-\(getpid())-\(UUID().uuidString.prefix(8))")
        do {
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        } catch {
            throw PerfkitError(
                .cannotWrite, "\(work.path): cannot create a folder for the processes' reports: \(error)")
        }
        defer { try? FileManager.default.removeItem(at: work) }

        var reports: [Report] = []
        for index in 0..<count {
            if count > 1 { printError("run: process \(index + 1) of \(count)\n") }
            let directory = work.appendingPathComponent("process-\(index)")
            let status: Int32
            do {
                status = try PerfkitProcess.run(
                    childArguments(reportDirectory: directory, index: index), executable: executable,
                    environment: fixedHashSeed ? Self.fixedHashSeedEnvironment : nil, quiet: true)
            } catch let interrupted as PerfkitProcess.Interrupted {
                guard !reports.isEmpty else { throw interrupted }
                var report = merged(reports)
                report.complete = false
                report.incompleteReason = "interrupted after \(reports.count) of \(count) processes"
                return report
            }
            guard status == 0 else {
                throw PerfkitError(
                    .runFailed,
                    "\(executable.path): process \(index + 1) of \(count) failed with exit status \(status)"
                )
            }
            var report = try PerfkitProcess.onlyReport(in: directory)
            for benchmark in report.benchmarks.indices {
                for sample in report.benchmarks[benchmark].samples.indices {
                    report.benchmarks[benchmark].samples[sample].process = index
                }
            }
            reports.append(report)
        }
        return merged(reports)
    }

    /// This process's environment with Swift's hash seed fixed, as the runtime reads it at start.
    static var fixedHashSeedEnvironment: [String: String] {
        ProcessInfo.processInfo.environment.merging([EnvironmentCapture.deterministicHashingVariable: "1"]) {
            _, fixed in fixed
        }
    }

    private func merged(_ reports: [Report]) -> Report {
        var merged = InterleavedComparison.merge(reports)!
        merged.settings.processes = reports.count > 1 ? reports.count : nil
        return merged
    }
}
