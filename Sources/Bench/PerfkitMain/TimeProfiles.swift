import Foundation
import Harness
import PerfReport

/// The gate's sampled time profiles of regressed benchmarks: one short `run --profile` of them per
/// executable, and the differential of the two (``FunctionGrowth/timeDifferential(base:current:)``).
enum TimeProfiles {
    /// `executable`'s report of `ids`, each with a ``BenchmarkResult/timeProfile``: a quick run (two
    /// samples, for the chunk size) and one profiling pass per benchmark (0.5-2 s, ``ProfilingPass``).
    static func take(_ ids: [String], executable: URL, directory: URL) throws -> Report {
        let status = try PerfkitProcess.run(
            [
                "run", "--profile", "--quick", "--samples", "2", "--rounds", "1", "--allow-debug-build",
                "--filter", InterleavedComparison.filter(matchingExactly: ids), "--output", directory.path,
            ], executable: executable, quiet: true)
        guard status == 0 else {
            throw PerfkitError(.runFailed, "\(executable.path): `run --profile` exited with \(status)")
        }
        return try PerfkitProcess.onlyReport(in: directory)
    }

    /// Copies the profiles of `ids` from `base` and `new` into `baseline` and `current` (for the
    /// pprof pair and the report's flame graph) and puts the time differentials on `current`'s
    /// comparison.
    static func attach(_ ids: [String], base: Report, new: Report, baseline: inout Report, current: inout Report) {
        for id in ids {
            if let profile = base.benchmarks.first(where: { $0.id == id })?.timeProfile {
                for index in baseline.benchmarks.indices where baseline.benchmarks[index].id == id {
                    baseline.benchmarks[index].timeProfile = profile
                }
            }
            if let profile = new.benchmarks.first(where: { $0.id == id })?.timeProfile {
                for index in current.benchmarks.indices where current.benchmarks[index].id == id {
                    current.benchmarks[index].timeProfile = profile
                }
            }
        }
        current.comparison = current.comparison.map {
            FunctionGrowth.attachTime(to: $0, baseline: baseline, current: current)
        }
    }
}
