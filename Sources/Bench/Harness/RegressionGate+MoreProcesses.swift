import Foundation
import PerfReport

extension RegressionGate {
    /// The looks after the first for what it left undecided: a time whose interval reached beyond the
    /// threshold is measured in more processes, look after look, until its interval settles on one
    /// side or the time for looks runs out (docs/regression-gate.md, "More processes for what the
    /// first look cannot decide").
    ///
    /// A look counts each process as a draw (``ProcessLevelComparison/Model/independentDraws``)
    /// against the stored baseline, only with the machine's factor divided out of every process; or,
    /// with the baseline's build measured beside the candidate, alternating, each pair of fresh
    /// processes run back to back (``ProcessLevelComparison/Model/pairedDraws``).
    /// All looks together spend ``alphaShare`` of the comparator's alpha, each look an equal part, its
    /// interval at the matching level (Bonferroni over looks): whichever look decides, an unchanged
    /// benchmark is called regressed or improved with at most that, however the looks depend on each other.
    public struct MoreProcesses: Sendable, Equatable {
        /// Seconds a command may spend on looks; 0: none, the first look's verdicts stand.
        public var budgetSeconds: Double = 20
        /// Processes a look adds to each side it measures.
        public var processesPerLook = 2
        /// Looks at most; the level each look is tested at is set by it.
        public var maximumLooks = 6
        /// The part of the comparator's alpha all looks spend together: a fifth (1% of the default 5%).
        /// The first look counts a candidate's processes as one draw, more cautious than its alpha while
        /// the baseline's processes vary as the candidate's do; looks count each process, so at the whole
        /// alpha up to 2.5% of unchanged runs could be called slower: 1 of 40 was (docs/regression-gate.md).
        public var alphaShare = 0.2

        /// Processes a stored baseline needs before looks count against it: fewer cannot show how far
        /// its level moves from one process to the next (looks against a 3-process baseline called an
        /// unchanged benchmark 28.8% slower in .ci/run, 2026-11-29). The README records 10.
        public var minimumBaselineProcesses = 8

        /// How far apart a baseline's processes of a benchmark may lie (the spread of their medians
        /// with the machine's factor divided out, where it is known) before the baseline measures it in
        /// more processes: the layout-sensitive benchmarks of #61 lie 15% apart or more.
        public var baselineSpreadPercent = 15.0

        public init() {}

        /// What a baseline measures again: its benchmarks whose processes lie further apart than
        /// ``baselineSpreadPercent``, each with its spread, and with them the quickest others, so that
        /// each new process gives the machine's factor (as a look's do).
        package struct SpreadBenchmarks: Equatable {
            package var spread: [String: Double]
            package var benchmarks: [String]
        }

        /// The benchmarks of `baseline`, a report measured in processes, that lie too far apart: a look's
        /// interval against a stored baseline of n processes never narrows below t·s/√n, so these need
        /// more baseline processes than the rest (docs/regression-gate.md). Nil when none does, or when
        /// the baseline has fewer than ``minimumBaselineProcesses``, against which no look counts anyway.
        package func spreadBenchmarks(in baseline: Report) -> SpreadBenchmarks? {
            var annotated = baseline
            ProcessFactors.annotate(&annotated, defaultThresholdPercent: 5, deterministicHashing: false)
            var spread: [String: Double] = [:]
            for result in annotated.benchmarks {
                guard let processes = result.processSpread,
                    processes.wallMedians.count >= minimumBaselineProcesses
                else { continue }
                let percent = processes.relativeSpreadPercent ?? processes.spreadPercent
                if percent > baselineSpreadPercent { spread[result.id] = percent }
            }
            guard !spread.isEmpty else { return nil }
            let open = annotated.benchmarks.map(\.id).filter { spread[$0] != nil }
            return SpreadBenchmarks(
                spread: spread, benchmarks: benchmarks(open, baseline: annotated, current: annotated))
        }

        /// The time entries of a comparison in processes that more processes could decide: *within
        /// noise* because the interval reached beyond the threshold or included no change, on a machine
        /// that was not busy; without `interleaved` only those on relative levels (the machine's factor
        /// divided out), as raw levels of a candidate's processes share its minute, against a stored
        /// baseline of at least ``minimumBaselineProcesses``.
        public func undecided(_ comparison: Comparison, interleaved: Bool) -> [String] {
            undecidable(comparison, interleaved: interleaved)
                .filter { interleaved || $0.baseline >= minimumBaselineProcesses }.map(\.id)
        }

        /// What ``undecided(_:interleaved:)`` leaves within noise only because the stored baseline has
        /// too few processes (none when `interleaved`), with that count: for the command to say so.
        public func undecidedForTooFewBaselineProcesses(_ comparison: Comparison, interleaved: Bool)
            -> [(id: String, baseline: Int)]
        {
            guard !interleaved else { return [] }
            return undecidable(comparison, interleaved: false).filter { $0.baseline < minimumBaselineProcesses }
        }

        private func undecidable(_ comparison: Comparison, interleaved: Bool) -> [(id: String, baseline: Int)] {
            guard budgetSeconds > 0, maximumLooks > 0, processesPerLook > 0 else { return [] }
            return comparison.entries.compactMap { entry in
                guard entry.metric == .wallTime || entry.metric == .cpuTime, Self.leftOpen(entry),
                    entry.reason.substitution == nil,
                    case .tested(_, _, let processes?, _, _) = entry.reason.finding
                else { return nil }
                if !interleaved {
                    guard case .relative? = entry.reason.processLevels else { return nil }
                }
                return (entry.id, processes.baseline)
            }
        }

        /// Whether more processes could decide `entry`: *within noise* as tested (an interval reaching
        /// beyond the threshold or including no change), and either unreviewed, or re-run without
        /// confirming a regression, or made inconclusive only because every benchmark slowed
        /// (``RegressionGate/reviewSharedSlowdown(_:)`` on relative levels); or, whatever it read,
        /// inconclusive only because the machine moved in most of the candidate's processes: once more
        /// processes outnumber those, they are left out. The moving host's +5% runs stopped at the shared
        /// slowdown 3 of 10 (2026-12-05), the quiet host's at the re-run 3 of 10, the moving host's +5%
        /// and +10% where the machine moved 7 of 20 (2026-12-07).
        static func leftOpen(_ entry: ComparisonEntry) -> Bool {
            guard case .tested(_, _, _, _, let outcome) = entry.reason.finding else { return false }
            let reviews = entry.reason.reviews.filter { !Self.isUnconfirmedRerun($0) && !Self.isLeftOut($0) }
            if entry.verdict == .inconclusive, reviews.count == 1, Self.isMachineMoved(reviews[0]),
                case .relative? = entry.reason.processLevels
            {
                return true
            }
            guard
                outcome == .intervalReachesBeyondThreshold || outcome == .intervalIncludesNoChange
                    || outcome == .belowThresholdIntervalReachesBeyond
            else { return false }
            if entry.verdict == .withinNoise { return reviews.isEmpty }
            guard entry.verdict == .inconclusive, reviews.count == 1, Self.isSharedSlowdown(reviews[0]),
                case .relative? = entry.reason.processLevels
            else { return false }
            return true
        }

        static func isSharedSlowdown(_ review: ComparisonReason.Review) -> Bool {
            if case .withinSharedSlowdown = review { return true }
            return false
        }

        static func isMachineMoved(_ review: ComparisonReason.Review) -> Bool {
            if case .machineMoved = review { return true }
            return false
        }

        static func isLeftOut(_ review: ComparisonReason.Review) -> Bool {
            if case .processesLeftOut = review { return true }
            return false
        }

        static func isUnconfirmedRerun(_ review: ComparisonReason.Review) -> Bool {
            if case .rerunDidNotConfirm = review { return true }
            return false
        }

        /// A look's benchmarks: the open ones, then the quickest others the baseline has until each
        /// shares its processes with ``ProcessFactors/minimumOthers`` others, for the machine's factor
        /// (undecided ones count: three undecided and one other make a look of four, not of three).
        func benchmarks(_ open: [String], baseline: Report, current: Report) -> [String] {
            let enough = ProcessFactors.minimumOthers + 1
            let others = SecondLook.quickestFirst(baseline: baseline, current: current).filter { !open.contains($0) }
            var chosen = open + others.prefix(max(0, enough - open.count))
            // A stored baseline's process may hold only some benchmarks (a spread one's extra processes,
            // ``spreadBenchmarks(in:)``): the look takes enough of those along for its factor there too.
            let processes = Self.benchmarksByProcess(baseline).filter { !$0.isDisjoint(with: open) }
            while true {
                let short = processes.filter { $0.intersection(chosen).count < enough }
                guard !short.isEmpty,
                    let next = others.first(where: { id in !chosen.contains(id) && short.contains { $0.contains(id) } })
                else { break }
                chosen.append(next)
            }
            return chosen
        }

        /// The benchmarks each process of `report` measured.
        static func benchmarksByProcess(_ report: Report) -> [Set<String>] {
            var byProcess: [Int: Set<String>] = [:]
            for result in report.benchmarks {
                for process in Set(result.samples.compactMap(\.process)) {
                    byProcess[process, default: []].insert(result.id)
                }
            }
            return byProcess.keys.sorted().map { byProcess[$0]! }
        }

        /// The comparator of a look: each process a draw (each pair of processes, `interleaved`),
        /// ``alphaShare`` of alpha and of the interval's miss rate shared out over ``maximumLooks``.
        func comparator(_ first: Comparator, interleaved: Bool) -> Comparator {
            var look = first
            look.processModel = interleaved ? .pairedDraws : .independentDraws
            look.alpha = first.alpha * alphaShare / Double(maximumLooks)
            look.confidenceLevel = 1 - (1 - first.confidenceLevel) * alphaShare / Double(maximumLooks)
            return look
        }
    }

    /// `decision` with the benchmarks its first look left undecided (``MoreProcesses/undecided(_:interleaved:)``)
    /// measured again by `measure`, look after look, until each is decided or the policy allows no more
    /// looks. `measure` gets a look's benchmarks (``MoreProcesses/benchmarks(_:baseline:current:)``)
    /// and returns new processes of the current side and, when `interleaved`, of the baseline's
    /// build beside them (else the stored baseline); nil: no more looks (the time ran out, Ctrl-C).
    /// An entry a look decided, or the last look's, replaces the first one's, with a review saying so.
    public func decideUndecided(
        _ decision: Decision, baseline: Report, current: Report, interleaved: Bool,
        measure: (_ benchmarks: [String]) throws -> Remeasured?
    ) rethrows -> Decision {
        var open = moreProcesses.undecided(decision.comparison, interleaved: interleaved)
        guard !open.isEmpty else { return decision }
        let lookGate = RegressionGate(
            comparator: moreProcesses.comparator(comparator, interleaved: interleaved), basis: basis)
        // Against the stored baseline, a re-run's process is one more draw of the candidate, counted too.
        let start = decision.rerun.map { Self.appendingProcesses(of: $0, to: current) } ?? current
        var sides: (baseline: Report?, current: Report?) = interleaved ? (nil, nil) : (baseline, start)
        var outcomes: [String: LookOutcome] = [:]
        var looks = 0
        while !open.isEmpty, looks < moreProcesses.maximumLooks {
            let ids = moreProcesses.benchmarks(open, baseline: baseline, current: current)
            guard let again = try measure(ids) else { break }
            looks += 1
            sides.current = Self.appendingProcesses(of: again.current, to: sides.current)
            sides.baseline = interleaved ? Self.appendingProcesses(of: again.baseline, to: sides.baseline) : baseline
            let measured = Set(ids)
            // Only the open benchmarks are tested: the companions' verdicts are dropped, so Holm counts
            // the open ones (over all four, the sort's p was ×4: 5 of 9 quiet +5% misses, 2026-12-07).
            let look = lookGate.compare(
                baseline: Self.only(measured, of: sides.baseline!), current: Self.only(measured, of: sides.current!),
                tested: Set(open))
            for entry in look.entries where open.contains(entry.id) {
                if !interleaved && !Self.onRelativeLevels(entry) {
                    // The machine's factor could not be told in a new process: no draw to count.
                    open.removeAll { $0 == entry.id }
                    continue
                }
                var outcome = LookOutcome(entry: entry, looks: looks)
                if Self.waitedForCPU(entry.id, in: again, interleaved: interleaved) {
                    // Both builds busy alike is no busier side, but their processes' levels then move
                    // with the neighbours by more than their spread says: no verdict (a false
                    // regression of 27% in 8 pairs of processes under a load of 5, 2026-11-29).
                    outcome.entry.review(.busyMachineInconclusive, verdict: .inconclusive)
                    outcome.stopped = true
                } else if entry.verdict == .regressed || entry.verdict == .improved || entry.verdict == .noChange {
                    outcome.stopped = true
                } else if entry.reason.reviews.contains(where: MoreProcesses.isSharedSlowdown),
                    !MoreProcesses.leftOpen(entry)
                {
                    // No change on relative levels, every benchmark slower: more processes cannot tell that apart.
                    outcome.stopped = true
                }
                outcomes[entry.id] = outcome
                if outcome.stopped { open.removeAll { $0 == entry.id } }
            }
        }
        guard !outcomes.isEmpty else { return decision }
        var result = decision
        result.comparison.entries = decision.comparison.entries.map { first in
            guard let outcome = outcomes[first.id] else { return first }
            var later = outcome.entry
            var firstProcesses = Self.processes(first)
            if !interleaved, let counted = firstProcesses {
                firstProcesses = ComparisonReason.PerSide(
                    baseline: counted.baseline, current: Self.processCount(of: first.id, in: start))
            }
            let finalCount = Self.processes(later)?.current ?? 0
            // Said first, so that the words read "undecided after 3 processes, decided by …: <finding>".
            later.reason.reviews.insert(
                .moreProcesses(
                    firstProcesses: firstProcesses,
                    addedProcesses: interleaved ? finalCount : finalCount - (firstProcesses?.current ?? 0),
                    looks: outcome.looks, interleaved: interleaved,
                    decided: outcome.stopped && later.verdict != .inconclusive), at: 0)
            return later
        }
        return result
    }

    /// A benchmark's last look: its entry, how many looks it took, whether they stopped there.
    struct LookOutcome {
        var entry: ComparisonEntry
        var looks: Int
        var stopped = false
    }

    /// Whether a look's new processes of `id` got less of the CPU than a quiet machine gives
    /// (``MachineContention/busyShare`` of their wall time), on either side it measured.
    static func waitedForCPU(_ id: String, in look: Remeasured, interleaved: Bool) -> Bool {
        let sides = interleaved ? [look.baseline, look.current] : [look.current]
        return sides.contains { report in
            guard let result = report.benchmarks.first(where: { $0.id == id }),
                let onCPU = MachineContention.onCPU(result)
            else { return false }
            return onCPU.share < MachineContention.busyShare
        }
    }

    /// Each side's processes a tested entry compared, when it compared processes.
    static func processes(_ entry: ComparisonEntry) -> ComparisonReason.PerSide<Int>? {
        if case .tested(_, _, let processes, _, _) = entry.reason.finding { return processes }
        return nil
    }

    /// How many processes of `report` measured `id`.
    static func processCount(of id: String, in report: Report) -> Int {
        Set(report.benchmarks.first { $0.id == id }?.samples.compactMap(\.process) ?? []).count
    }

    static func onRelativeLevels(_ entry: ComparisonEntry) -> Bool {
        if case .relative? = entry.reason.processLevels { return true }
        return false
    }

    /// `report`'s benchmarks in `ids` only, so that a look's machine factor and shared-slowdown review
    /// count what it measured.
    static func only(_ ids: Set<String>, of report: Report) -> Report {
        var kept = report
        kept.benchmarks = report.benchmarks.filter { ids.contains($0.id) }
        return kept
    }

    /// `earlier` and `new` as one report, `new`'s processes numbered after `earlier`'s.
    package static func appendingProcesses(of new: Report, to earlier: Report?) -> Report {
        guard let earlier else { return new }
        let next =
            (earlier.benchmarks.flatMap { $0.samples.compactMap(\.process) }.max() ?? -1) + 1
        var renumbered = new
        for benchmark in renumbered.benchmarks.indices {
            for sample in renumbered.benchmarks[benchmark].samples.indices {
                renumbered.benchmarks[benchmark].samples[sample].process =
                    next + (renumbered.benchmarks[benchmark].samples[sample].process ?? 0)
            }
        }
        return InterleavedComparison.merge([earlier, renumbered])!
    }
}
