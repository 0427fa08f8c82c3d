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

    /// A baseline's benchmarks whose processes lie far apart (``RegressionGate/MoreProcesses/spreadBenchmarks(in:)``),
    /// measured in `--spread-processes` more processes (twice `--processes` by default), each with
    /// the quickest others: a gate's looks narrow their interval only as far as the baseline's
    /// processes allow (their share of the interval, s·√(1/n), is 3.2% at n = 10 and 1.8% at 30
    /// for processes that lie ~30% apart, s ≈ 10%). Then in ``fixedHashSeedProcessCount`` with
    /// Swift's hash seed fixed, for the finding: whether the seed is what moves them.
    func measureSpreadBenchmarks(_ report: Report) throws -> Report {
        let policy = RegressionGate.MoreProcesses()
        let count = spreadProcesses ?? 2 * processes
        guard count > 0, report.complete, !InterruptFlag.isSet,
            let spread = policy.spreadBenchmarks(in: report)
        else { return report }
        let named = spread.spread.sorted { $0.key < $1.key }.map {
            "\($0.key) (\(String(format: "%.0f", $0.value))%)"
        }
        let others = spread.benchmarks.filter { spread.spread[$0] == nil }
        // Already run with SWIFT_DETERMINISTIC_HASHING set, every process hashed alike: nothing to tell.
        let fixedSeedProcesses = EnvironmentCapture.deterministicHashing() ? 0 : Self.fixedHashSeedProcessCount
        printError(
            "run: processes lie more than \(String(format: "%g", policy.baselineSpreadPercent))% apart in "
                + named.joined(separator: ", ") + "; measuring \(named.count == 1 ? "it" : "them") in \(count) more "
                + "processes\(others.isEmpty ? "" : " with \(others.joined(separator: ", ")) (the machine's factor)"), "
                + "so that a gate can narrow its interval against this baseline (--spread-processes 0 skips)"
                + "\(fixedSeedProcesses == 0 ? "" : ", and in \(fixedSeedProcesses) with Swift's hash seed fixed, to tell whether it is the seed")\n"
        )
        let filter = InterleavedComparison.filter(matchingExactly: spread.benchmarks)
        let more = try ProcessRuns(count: count, filter: filter).measure()
        var extended = RegressionGate.appendingProcesses(of: more, to: report)
        extended.settings.processes = processes + count
        guard fixedSeedProcesses > 0, more.complete, !InterruptFlag.isSet else { return extended }
        extended.fixedHashSeedProcesses =
            try ProcessRuns(count: fixedSeedProcesses, filter: filter, fixedHashSeed: true).measure().benchmarks
        return extended
    }

    /// Processes a baseline measures its far-spread benchmarks in with Swift's hash seed fixed
    /// (``Report/fixedHashSeedProcesses``): enough to tell a spread of 1–5% from 20–60% (the route
    /// lookups of #61, 2026-12-07), ~2 s each for a package like Examples/collections-gate.
    static let fixedHashSeedProcessCount = 5

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

    /// The gate's later looks at what its first left undecided (``RegressionGate/decideUndecided(_:baseline:current:interleaved:measure:)``):
    /// each look ``RegressionGate/MoreProcesses/processesPerLook`` processes, alternating with the
    /// baseline's build when `--baseline-binary` gave it, while `--decide-within` has time for one
    /// more (judged by the last look's time); a run in one process keeps its verdicts.
    func measureUndecided(_ decision: RegressionGate.Decision, baseline: GatedBaseline, current report: Report) throws
        -> RegressionGate.Decision
    {
        let policy = baseline.gate.moreProcesses
        let baseBuild = baseline.binary.map { URL(fileURLWithPath: $0) }
        let undecided = policy.undecided(decision.comparison, interleaved: baseBuild != nil)
        let short = policy.undecidedForTooFewBaselineProcesses(decision.comparison, interleaved: baseBuild != nil)
        if processes > 1, let fewest = short.map(\.baseline).min() {
            printError(
                "run: \(short.map(\.id).joined(separator: ", ")) left undecided: the stored baseline has \(fewest) "
                    + "processes, more processes are measured against one of \(policy.minimumBaselineProcesses) or more "
                    + "(record it with --processes 10, or give --baseline-binary)\n")
        }
        guard processes > 1, !undecided.isEmpty, !InterruptFlag.isSet else { return decision }
        printError(
            "run: \(undecided.joined(separator: ", ")) undecided; measuring in more processes"
                + "\(baseBuild == nil ? "" : ", beside the baseline's build,") for up to \(String(format: "%g", policy.budgetSeconds)) s\n"
        )
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int64(policy.budgetSeconds * 1000))
        var lastLook: Duration = .zero
        var look = 0
        let decided = try baseline.gate.decideUndecided(
            decision, baseline: baseline.report, current: report, interleaved: baseBuild != nil
        ) { ids in
            guard !InterruptFlag.isSet, deadline - clock.now > lastLook else { return nil }
            let started = clock.now
            let filter = InterleavedComparison.filter(matchingExactly: ids)
            var sides: [InterleavedComparison.Side: Report] = [:]
            for index in 0..<policy.processesPerLook {
                let order = InterleavedComparison.order(round: look * policy.processesPerLook + index)
                for side in [order.first, order.second] where side == .current || baseBuild != nil {
                    let runs = ProcessRuns(
                        count: 1, filter: filter, executable: side == .current ? PerfkitProcess.executable : baseBuild!,
                        arguments: measuringArguments)
                    sides[side] = RegressionGate.appendingProcesses(of: try runs.measure(), to: sides[side])
                }
            }
            look += 1
            lastLook = clock.now - started
            return RegressionGate.Remeasured(baseline: sides[.baseline] ?? baseline.report, current: sides[.current]!)
        }
        // What the looks did, a line each: "…/heap (regressed): undecided after 3 processes, decided by …".
        for entry in decided.comparison.entries where undecided.contains(entry.id) {
            guard let clause = entry.explanation.split(separator: ";").first else { continue }
            printError("run: \(entry.id) (\(entry.verdict.rawValue)): \(clause)\n")
        }
        return decided
    }

    /// The options that decide how a child measures, and nothing else: what the gate's later looks
    /// give a child of either build (an older baseline build knows these, not the gate's newer ones).
    var measuringArguments: [String] {
        var arguments = ["run"]
        if quick { arguments.append("--quick") }
        if thorough { arguments.append("--thorough") }
        if let samples { arguments += ["--samples", "\(samples)"] }
        if let rounds { arguments += ["--rounds", "\(rounds)"] }
        if let timeBudget { arguments += ["--time-budget", "\(timeBudget)"] }
        if allowDebugBuild { arguments.append("--allow-debug-build") }
        return arguments
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
