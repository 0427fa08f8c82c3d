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

    /// The gate's second look at `suspects` (``RegressionGate/decide(baseline:current:remeasure:)``),
    /// as its ``RegressionGate/SecondLook`` says; nil (the first verdicts stand) for a run in one
    /// process or an interrupted one.
    func measureAgain(_ suspects: [String], baseline: GatedBaseline, current report: Report) throws
        -> RegressionGate.Remeasured?
    {
        guard processes > 1, !InterruptFlag.isSet else { return nil }
        printError(
            "run: \(suspects.count) regressed; measuring \(suspects.count == 1 ? "it" : "them") again to confirm\n"
        )
        let look = baseline.gate.secondLook
        let ids = look.benchmarks(suspects: suspects, baseline: baseline.report, current: report)
        let again = try ProcessRuns(count: look.processes, filter: InterleavedComparison.filter(matchingExactly: ids))
            .measure()
        return RegressionGate.Remeasured(baseline: baseline.report, current: again)
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
    func explainTime(base gated: GatedBaseline, report: inout Report) -> Report {
        let base = gated.report
        let regressed = (report.comparison?.entries ?? []).filter {
            $0.verdict == .regressed && ($0.metric == .wallTime || $0.metric == .cpuTime)
        }.map(\.id)
        guard !regressed.isEmpty, !InterruptFlag.isSet else { return base }
        let stored = regressed.filter { id in base.benchmarks.contains { $0.id == id && $0.timeProfile != nil } }
        guard gated.binary != nil || !stored.isEmpty else {
            let notes = report.comparison.flatMap(\.notes) ?? []
            report.comparison?.notes = notes + [ComparisonWording.noTimeProfiles]
            return base
        }
        var baseline = base
        do {
            let folder = try WorkFolder(prefix: "perfkit-profiles")
            defer { folder.remove() }
            let ids = gated.binary == nil ? stored : regressed
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
                try gated.binary.map {
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
