import Foundation
import Harness
import PerfReport

extension RunCommand {
    /// A baseline measured in processes keeps time profiles unless told not to, when it has at most
    /// this many benchmarks: each costs a 0.5-2 s pass in the first process, 10-40 s at 20.
    static let profiledBaselineLimit = 20

    /// Whether `run --processes N` without `--profile`/`--no-profile` profiles its first process: a
    /// baseline (not a gated run, which profiles its regressions itself), timed, small enough.
    static func profilesByDefault(benchmarks: Int, gating: Bool, instructions: Bool) -> Bool {
        !gating && !instructions && benchmarks <= profiledBaselineLimit
    }

    /// Processes of the second look at a regression: one is one more draw, as three would be (a
    /// candidate's processes count as one draw), and two cost busy runs their time limit
    /// (docs/regression-gate.md, "A quiet hour").
    static let confirmationProcesses = 1

    /// The gate's second look at `suspects` (``RegressionGate/decide(baseline:current:remeasure:)``):
    /// measured in processes, a time regression is measured once more, in one more process; nil
    /// (the first verdicts stand) for a run in one process or an interrupted one.
    func measureAgain(_ suspects: [String], baseline baselineReport: Report, current report: Report) throws
        -> RegressionGate.Remeasured?
    {
        // Measured in processes: a time regression is measured once more, in one more process.
        guard processes > 1, !InterruptFlag.isSet else { return nil }
        printError(
            "run: \(suspects.count) regressed; measuring \(suspects.count == 1 ? "it" : "them") again to confirm\n"
        )
        // With companions, whose levels give that process's machine factor (ProcessLevels):
        // the quickest of this run that the baseline has, so that the second look stays short.
        let inBaseline = Set(baselineReport.benchmarks.map(\.id))
        let quickestFirst = report.benchmarks.filter { inBaseline.contains($0.id) }.map { result in
            (id: result.id, time: result.samples.reduce(0) { $0 + $1.wallNanoseconds })
        }.sorted { $0.time < $1.time }.map(\.id)
        let companions = ProcessLevels.companions(of: suspects, among: quickestFirst)
        let again = try ProcessRuns(
            count: Self.confirmationProcesses,
            filter: InterleavedComparison.filter(matchingExactly: suspects + companions)
        ).measure()
        return RegressionGate.Remeasured(baseline: baselineReport, current: again)
    }

    /// Measures the selection in this process, with a progress line on a terminal.
    func measure(_ selection: BenchmarkSelection) -> Report {
        let profile = quick ? "quick" : thorough ? "thorough" : "default"
        var configuration = quick ? RunConfiguration.quick : thorough ? .thorough : .standard
        if let samples {
            configuration.samples = samples
            configuration.maximumFreshVisits = nil
        }
        if let timeBudget { configuration.timeBudgetSeconds = timeBudget }
        if let rounds { configuration.rounds = rounds }
        configuration.minimumSamples = min(configuration.minimumSamples, configuration.samples)
        if allocations { configuration.allocationCounter = InterposedAllocationCounter() }
        if self.profile == true && !instructions { configuration.operationProfiler = SampledOperationProfiler() }
        configuration.remedies = .commandLine

        let settings = RunSettings(
            filter: filter, quick: quick, samples: configuration.samples,
            timeBudgetSeconds: configuration.timeBudgetSeconds, warmupSeconds: configuration.warmupSeconds,
            minSampleNanoseconds: configuration.minimumSampleNanoseconds, allocations: allocations,
            instructions: instructions, rounds: configuration.rounds, profile: profile)
        let session = BenchmarkSession(
            selection: selection, configuration: configuration, settings: settings,
            buildConfiguration: buildConfiguration)
        let progress = ProgressLine()
        let report = session.run(shouldStop: { InterruptFlag.isSet }, progress: progress.update)
        progress.finish()
        return report
    }

    /// Puts a sampled time differential on each time regression (wall, or CPU where the gate judged
    /// by it): both binaries profiled now with `--baseline-binary`, else the baseline's stored time
    /// profiles against this build's. Returns the baseline with the profiles it was compared by.
    func explainTime(base: Report, report: inout Report) -> Report {
        let regressed = (report.comparison?.entries ?? []).filter {
            $0.verdict == .regressed && ($0.metric == .wallTime || $0.metric == .cpuTime)
        }.map(\.id)
        guard !regressed.isEmpty, !InterruptFlag.isSet else { return base }
        let stored = regressed.filter { id in base.benchmarks.contains { $0.id == id && $0.timeProfile != nil } }
        guard gate.baselineBinary != nil || !stored.isEmpty else {
            let notes = report.comparison.flatMap(\.notes) ?? []
            report.comparison?.notes = notes + [ComparisonWording.noTimeProfiles]
            return base
        }
        var baseline = base
        do {
            let folder = try WorkFolder(prefix: "perfkit-profiles")
            defer { folder.remove() }
            let ids = gate.baselineBinary == nil ? stored : regressed
            printError("run: profiling \(ids.count) regression(s) by sampled time\n")
            // This run's own profiles (`--profile`) when it has them all; else taken now.
            let profiledHere = ids.allSatisfy { id in
                report.benchmarks.contains { $0.id == id && $0.timeProfile != nil }
            }
            let new =
                profiledHere
                ? report
                : try TimeProfiles.take(
                    ids, executable: PerfkitProcess.original, directory: folder.url.appendingPathComponent("current"))
            let old =
                try gate.baselineBinary.map {
                    try TimeProfiles.take(
                        ids, executable: URL(fileURLWithPath: $0), directory: folder.url.appendingPathComponent("base"))
                } ?? base
            TimeProfiles.attach(ids, base: old, new: new, baseline: &baseline, current: &report)
        } catch {
            let notes = report.comparison.flatMap(\.notes) ?? []
            report.comparison?.notes = notes + [ComparisonWording.timeProfilesFailed("\(error)")]
        }
        return baseline
    }
}
