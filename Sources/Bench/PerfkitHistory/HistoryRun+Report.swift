import Foundation
import PerfReport

extension HistoryRun {
    /// The run a report describes.
    ///
    /// - Parameters:
    ///   - machineName: `--machine`: names the machine instead of its fingerprint.
    ///   - commitPosition: the commit's place along the first-parent history, when known.
    public init(report: Report, machineName: String? = nil, commitPosition: Int? = nil, branch: String? = nil) throws {
        var commit = report.environment.gitCommit
        var dirty = false
        if let measured = commit, measured.hasSuffix("-dirty") {
            commit = String(measured.dropLast("-dirty".count))
            dirty = true
        }
        self.init(
            digest: try ReportDigest.digest(of: report),
            machine: MachineFingerprint(report.environment, name: machineName),
            commit: commit, dirty: dirty, commitPosition: commitPosition, branch: branch, createdAt: report.createdAt,
            profile: report.settings.profile ?? (report.settings.quick ? "quick" : nil), complete: report.complete,
            results: report.benchmarks.flatMap(Self.results(of:)))
    }

    static func results(of benchmark: BenchmarkResult) -> [HistoryResult] {
        let verdict = benchmark.claim?.verdict.rawValue
        let threshold = benchmark.thresholdPercent
        func result(_ metric: HistoryMetric, _ value: Double, _ interval: ConfidenceInterval? = nil, count: Int)
            -> HistoryResult
        {
            HistoryResult(
                benchmark: benchmark.id, metric: metric, value: value, lower: interval?.lower, upper: interval?.upper,
                sampleCount: count, thresholdPercent: threshold, claimVerdict: verdict,
                executableBuildID: benchmark.executableBuildID)
        }
        var results = [
            result(
                .wall, benchmark.wallTime.median, benchmark.wallTime.medianConfidenceInterval,
                count: benchmark.wallTime.count)
        ]
        if let cpu = benchmark.cpuTime {
            results.append(result(.cpu, cpu.median, cpu.medianConfidenceInterval, count: cpu.count))
        }
        if let instructions = benchmark.instructionsPerOperation {
            results.append(result(.instructions, instructions, count: benchmark.samples.count))
        }
        if let allocations = benchmark.allocationsPerOperation {
            results.append(result(.allocations, allocations, count: benchmark.samples.count))
        }
        return results.filter { $0.value.isFinite }
    }
}
