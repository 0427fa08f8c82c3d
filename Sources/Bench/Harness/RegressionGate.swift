import Foundation
import PerfReport

/// Where a benchmark becomes *regressed*, and what the run's exit status is. In order: the
/// baseline is admitted (``admit(baseline:currentIDs:timing:)``); each benchmark gets its first
/// verdict from the comparator's rules (below: ``Comparator/decide(_:pValue:adjustedPValue:testCount:)``
/// for times, ``Comparator/exactEntry(id:metric:baseline:current:threshold:)`` for counts); a time
/// regression the whole run shares is reviewed as the machine's; the regressions left are measured
/// again through the caller's closure and stand only if confirmed; the result gives the ``Status``.
///
/// Commands gather the inputs (reports, how to measure again) and print; they decide nothing.
public struct RegressionGate: Sendable {
    /// What is compared.
    public enum Basis: Sendable {
        /// A time (wall or CPU) by the comparator's test, for two builds measured on this machine.
        case time(Metric)
        /// These exact counts only (``BaselineGate``), for a committed baseline from any machine;
        /// `remedies` finish the notes on the benchmarks left out.
        case counts([Metric], remedies: Remedies)
    }

    public var comparator: Comparator
    public var basis: Basis
    /// How the suspects of a run measured in processes are measured again.
    public var secondLook = SecondLook()
    /// How what the first look left undecided is measured in more processes (a command's choice:
    /// ``decideUndecided(_:baseline:current:interleaved:measure:)``).
    public var moreProcesses = MoreProcesses()

    public init(comparator: Comparator = Comparator(), basis: Basis = .time(.wallTime)) {
        self.comparator = comparator
        self.basis = basis
    }

    /// The re-measure policy: what a command measures again when the first look found suspects in a
    /// run measured in processes (a run in one process is not measured again: its first verdicts stand).
    public struct SecondLook: Sendable, Equatable {
        /// Processes of the second look: one is one more draw, as three would be (a candidate's
        /// processes count as one draw), and two cost busy runs their time limit
        /// (docs/regression-gate.md, "A quiet hour").
        public var processes = 1

        public init() {}

        /// The benchmarks to measure: the suspects, then as companions the ``ProcessFactors/minimumOthers``
        /// quickest of `current`'s other benchmarks that `baseline` has, so that the second look's
        /// machine factor can be told and the look stays short.
        public func benchmarks(suspects: [String], baseline: Report, current: Report) -> [String] {
            suspects
                + ProcessFactors.companions(
                    of: suspects, among: Self.quickestFirst(baseline: baseline, current: current))
        }

        /// `current`'s benchmarks that `baseline` has, by their measured time, quickest first.
        static func quickestFirst(baseline: Report, current: Report) -> [String] {
            let inBaseline = Set(baseline.benchmarks.map(\.id))
            return current.benchmarks.filter { inBaseline.contains($0.id) }.map { result in
                (id: result.id, time: result.samples.reduce(0) { $0 + $1.wallNanoseconds })
            }.sorted { $0.time < $1.time }.map(\.id)
        }
    }

    /// Both sides of the suspects, measured again.
    public struct Remeasured: Sendable {
        public var baseline: Report
        public var current: Report

        public init(baseline: Report, current: Report) {
            self.baseline = baseline
            self.current = current
        }
    }

    /// The gate's answer: the final comparison and the exit status it gives.
    public struct Decision: Sendable, Equatable {
        public var comparison: Comparison
        /// The benchmarks the first look called regressed, in order.
        public var suspects: [String]
        /// Whether the suspects were measured again (the closure measured them).
        public var remeasured: Bool
        /// The candidate's side of that second look, for later looks to count its processes.
        public var rerun: Report? = nil
        public var status: Status { Status(comparison) }
    }

    /// How a gated command ends: its process exit code is the raw value.
    public enum Status: Int32, Sendable, Equatable {
        case passed = 0
        /// A benchmark regressed.
        case regressed = 2
        /// Nothing regressed, but a time could not be judged (a busy machine, a shift of its speed): retry.
        case inconclusive = 3

        public init(_ comparison: Comparison?) {
            guard let comparison else {
                self = .passed
                return
            }
            self = comparison.hasRegression ? .regressed : comparison.isInconclusive ? .inconclusive : .passed
        }
    }

    /// One look, nothing measured again: for reports already made (`compare`, `merge`, counts).
    public func decide(baseline: Report, current: Report) -> Decision {
        decide(baseline: baseline, current: current, remeasure: { _ in nil })
    }

    /// Compares, reviews, has the suspects measured again by `remeasure` (nil from it: not measured,
    /// the first verdicts stand) and confirms. `remeasure` is called at most once, only with suspects.
    public func decide(
        baseline: Report, current: Report, remeasure: (_ suspects: [String]) throws -> Remeasured?
    ) rethrows -> Decision {
        let first = compare(baseline: baseline, current: current)
        let suspects = first.entries.filter { $0.verdict == .regressed }.map(\.id)
        guard !suspects.isEmpty, let again = try remeasure(suspects) else {
            let named = FunctionGrowth.attach(to: first, baseline: baseline, current: current)
            return Decision(comparison: named, suspects: suspects, remeasured: false)
        }
        let rerun = compare(baseline: again.baseline, current: again.current)
        // Where each confirmed count regression grew, from the later look's profiles.
        let confirmed = FunctionGrowth.attach(
            to: Self.confirm(first: first, rerun: rerun), baseline: again.baseline, current: again.current)
        return Decision(comparison: confirmed, suspects: suspects, remeasured: true, rerun: again.current)
    }

    /// One look: every benchmark's verdict on the basis, then the review of shared slowdowns.
    /// `tested`: the benchmarks whose time verdicts are asked for (``Comparator/compare(baseline:current:metric:tested:)``).
    package func compare(baseline: Report, current: Report, tested: Set<String>? = nil) -> Comparison {
        var comparison: Comparison
        switch basis {
        case .time(let metric):
            comparison = comparator.compare(baseline: baseline, current: current, metric: metric, tested: tested)
        case .counts(let metrics, let remedies):
            comparison = BaselineGate.compare(
                baseline: baseline, current: current, metrics: metrics, comparator: comparator, remedies: remedies)
        }
        comparison.entries = Self.reviewSharedSlowdown(comparison.entries)
        return comparison
    }

    // MARK: - The baseline

    /// Why a baseline is not compared at all; a command words it with the file's name.
    public struct Refusal: Error, Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            /// No benchmark in common: another package's or suite's baseline, whose comparison
            /// would read all added and removed, nothing regressed, a gate that cannot fail.
            case sharesNoBenchmark(baselineCount: Int, example: String?)
            /// Times taken under other conditions (``TimingConditions``): valgrind against native,
            /// debug against release, another processor. Exact counts still compare.
            case incomparableTimes(differences: [String])
        }

        public var kind: Kind
    }

    /// Refuses a baseline this gate cannot judge with: sharing no benchmark with `currentIDs`, or,
    /// gating on time, timed under other conditions than `timing` (the current side's).
    public func admit(baseline: Report, currentIDs: Set<String>, timing: TimingConditions) throws(Refusal) {
        if !currentIDs.isEmpty, Set(baseline.benchmarks.map(\.id)).isDisjoint(with: currentIDs) {
            throw Refusal(
                kind: .sharesNoBenchmark(
                    baselineCount: baseline.benchmarks.count, example: baseline.benchmarks.first?.id))
        }
        guard case .time = basis else { return }
        let differences = TimingConditions(of: baseline).differences(from: timing)
        if !differences.isEmpty { throw Refusal(kind: .incomparableTimes(differences: differences)) }
    }

    // MARK: - What limits the whole comparison

    /// Gating on time, a caveat naming the sides measured in one process: their process-to-process
    /// levels (hash seed, layout, the machine's minute) cannot be told from a change. For `run`,
    /// whose processes are its own; `ci`'s interleaved rounds are processes by construction.
    package func caveats(baseline: Report, current: Report) -> [Comparison.Caveat] {
        guard case .time = basis else { return [] }
        let sides = [(ComparisonReason.Side.baseline, baseline), (.current, current)]
            .filter { !Self.measuredInProcesses($0.1) }.map(\.0)
        return sides.isEmpty ? [] : [.singleProcess(sides: sides)]
    }

    /// Whether some benchmark of `report` has samples from two processes or more.
    static func measuredInProcesses(_ report: Report) -> Bool {
        report.benchmarks.contains { result in Set(ProcessFactors.processes(of: result) ?? []).count >= 2 }
    }

    // MARK: - A slowdown the whole run shares

    /// The others' median ratio must reach this share of the threshold to speak for the machine.
    static let shareOfThreshold = 0.5
    /// Fewer other benchmarks than this say nothing about the machine.
    static let minimumOthers = 3

    /// A time regression whose fellow benchmarks (at least ``minimumOthers``) moved the same way,
    /// their median ratio beyond half the threshold, is divided by their median: still beyond the
    /// threshold it stands, otherwise it is inconclusive. Time alone cannot tell a slower machine
    /// from a change that slows everything (docs/regression-gate.md, "A quiet hour"). An entry judged
    /// on relative process levels had the others' move divided out already: it is reviewed alike,
    /// and one its raw levels alone would call regressed is inconclusive too.
    static func reviewSharedSlowdown(_ entries: [ComparisonEntry]) -> [ComparisonEntry] {
        let timed = entries.filter { ($0.metric == .wallTime || $0.metric == .cpuTime) && $0.ratio != nil }
        guard timed.count > minimumOthers else { return entries }
        return entries.map { entry in
            guard entry.metric == .wallTime || entry.metric == .cpuTime, let ratio = entry.ratio else { return entry }
            let others = timed.filter { $0.id != entry.id }.compactMap(rawRatio)
            guard others.count >= minimumOthers else { return entry }
            let sharedLimit = 1 + entry.thresholdPercent * shareOfThreshold / 100
            let limit = 1 + entry.thresholdPercent / 100
            var reviewed = entry
            if case .relative(let factors, let rawInterval, _)? = entry.reason.processLevels {
                let shared = sharedMovement(factors)
                guard shared >= sharedLimit else { return entry }
                if entry.verdict == .regressed {
                    reviewed.review(
                        .beyondSharedSlowdown(otherBenchmarks: others.count, medianRatio: shared, relativeRatio: ratio))
                } else if entry.verdict == .noChange || entry.verdict == .withinNoise, ratio * shared >= limit,
                    let rawInterval, rawInterval.lower > 1
                {
                    reviewed.review(
                        .withinSharedSlowdown(otherBenchmarks: others.count, medianRatio: shared, relativeRatio: ratio),
                        verdict: .inconclusive)
                }
                return reviewed
            }
            guard entry.verdict == .regressed else { return entry }
            let median = SampleStatistics.median(others)
            guard median >= sharedLimit else { return entry }
            let relative = ratio / median
            if relative >= limit {
                reviewed.review(
                    .beyondSharedSlowdown(otherBenchmarks: others.count, medianRatio: median, relativeRatio: relative))
            } else {
                reviewed.review(
                    .withinSharedSlowdown(otherBenchmarks: others.count, medianRatio: median, relativeRatio: relative),
                    verdict: .inconclusive)
            }
            return reviewed
        }
    }

    /// How much the machine (or every benchmark) moved between the sides, by a benchmark's
    /// factors: the geometric mean of the current side's over the baseline's.
    static func sharedMovement(_ factors: ComparisonReason.PerSide<[Double]>) -> Double {
        func logMean(_ values: [Double]) -> Double {
            values.isEmpty ? 0 : values.reduce(0) { $0 + log($1) } / Double(values.count)
        }
        return exp(logMean(factors.current) - logMean(factors.baseline))
    }

    /// An entry's ratio of the raw levels: a relative one times the shared movement divided out of it.
    static func rawRatio(_ entry: ComparisonEntry) -> Double? {
        guard let ratio = entry.ratio else { return nil }
        guard case .relative(let factors, _, _)? = entry.reason.processLevels else { return ratio }
        return ratio * sharedMovement(factors)
    }

    // MARK: - The second look

    /// The first look with each suspect's entry replaced by the re-run's: a regression stands only
    /// when the re-run finds it too. A suspect the re-run did not measure stays regressed (a gate
    /// does not pass on missing data).
    static func confirm(first: Comparison, rerun: Comparison) -> Comparison {
        let rerunByID = Dictionary(rerun.entries.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var result = first
        result.entries = first.entries.map { entry in
            guard entry.verdict == .regressed else { return entry }
            guard var again = rerunByID[entry.id], again.verdict != .added, again.verdict != .removed else {
                var kept = entry
                kept.review(.rerunMissing)
                return kept
            }
            again.review(
                again.verdict == .regressed
                    ? .rerunConfirmed(firstRatio: entry.ratio) : .rerunDidNotConfirm(firstRatio: entry.ratio))
            return again
        }
        return result
    }
}

// MARK: - A benchmark's first verdict

extension Comparator {
    /// A sampled metric: regressed when significant (Holm-adjusted), beyond the threshold, and the
    /// ratio's interval excludes no change. On a busy machine only a change against the neighbours'
    /// push stands (faster on the busier side, slower on the quieter); the rest is inconclusive.
    func decide(_ figures: Figures, pValue: Double, adjustedPValue: Double, testCount: Int) -> ComparisonEntry {
        let slowerLimit = 1 + figures.thresholdPercent / 100
        let fasterLimit = 1 / slowerLimit
        let significant = adjustedPValue < alpha
        let p = ComparisonReason.AdjustedPValue(adjustedPValue, tests: testCount)

        var entry: ComparisonEntry
        if let ratio = figures.ratio, let interval = figures.ratioInterval {
            let verdict: ComparisonEntry.Verdict
            let outcome: ComparisonReason.TestedOutcome
            // The rank test alone can be fooled by a shift of the tail (a neighbour's memory traffic
            // in some samples); a verdict also needs the ratio's interval to exclude "no change".
            if significant && ratio >= slowerLimit && interval.lower > 1 {
                (verdict, outcome) = (.regressed, .regressed)
            } else if significant && ratio <= fasterLimit && interval.upper < 1 {
                (verdict, outcome) = (.improved, .improved)
            } else if significant && (ratio >= slowerLimit || ratio <= fasterLimit) {
                (verdict, outcome) = (.withinNoise, .intervalIncludesNoChange)
            } else if significant && (interval.upper > slowerLimit || interval.lower < fasterLimit) {
                // "No change" only when the interval rules the threshold out: a +5% sort measured
                // +3.5% [+2.7, +6.4] was passed as below it (docs/regression-gate.md, 2026-12-07).
                (verdict, outcome) = (.withinNoise, .belowThresholdIntervalReachesBeyond)
            } else if significant {
                (verdict, outcome) = (.noChange, .belowThreshold)
            } else if interval.upper > slowerLimit || interval.lower < fasterLimit {
                (verdict, outcome) = (.withinNoise, .intervalReachesBeyondThreshold)
            } else {
                (verdict, outcome) = (.noChange, .noSignificantChange)
            }
            let finding = ComparisonReason.Finding.tested(
                ratio: ratio, interval: interval, processes: figures.processes, pValue: p, outcome: outcome)
            entry = figures.entry(verdict, finding, pValue: pValue, adjustedPValue: adjustedPValue)
        } else {
            let finding = ComparisonReason.Finding.ratioUndefined(
                baselineMedian: figures.baselineMedian ?? 0, pValue: p)
            entry = figures.entry(.withinNoise, finding, pValue: pValue, adjustedPValue: adjustedPValue)
        }
        if let leftOut = figures.processesLeftOut { entry.review(leftOut) }
        if let moved = figures.machineMoved,
            entry.verdict == .regressed || entry.verdict == .improved
                || entry.verdict == .noChange
        {
            entry.review(moved, verdict: .inconclusive)
            return entry
        }
        if let busy = figures.busy {
            if entry.verdict == (busy.currentWasBusier ? .regressed : .improved) {
                // Slower on the busier side: what neighbours add to CPU time differs by benchmark
                // (Collections/sort/ints +5-11% on two busy vCPUs, the others ~1%), so no threshold
                // or common factor separates it from a change (docs/regression-gate.md).
                entry.review(.busyMachineCannotTell, verdict: .inconclusive)
            } else if entry.verdict != .regressed, entry.verdict != .improved {
                // CPU time did not decide it, and wall time holds the neighbours' share: no verdict
                // either way, rather than "no change" for a slowdown hidden under the noise.
                entry.review(.busyMachineInconclusive, verdict: .inconclusive)
            }
        }
        return entry
    }

    /// An exact count: regressed beyond the threshold when it also moved by at least
    /// ``minimumCountDifference`` per operation (or rose from none); no test, there is no noise.
    func exactEntry(
        id: String, metric: Metric, baseline: Double, current: Double, threshold: Double
    ) -> ComparisonEntry {
        let slowerLimit = 1 + threshold / 100
        let ratio: Double? = baseline > 0 ? current / baseline : (current == baseline ? 1 : nil)
        let largeEnough = abs(current - baseline) >= Self.minimumCountDifference
        let residue = ComparisonReason.CountedOutcome.belowMinimumDifference(Self.minimumCountDifference)

        let verdict: ComparisonEntry.Verdict
        let outcome: ComparisonReason.CountedOutcome
        if let ratio {
            if ratio >= slowerLimit && largeEnough {
                (verdict, outcome) = (.regressed, .regressed)
            } else if ratio <= 1 / slowerLimit && largeEnough {
                (verdict, outcome) = (.improved, .improved)
            } else if ratio == 1 {
                (verdict, outcome) = (.noChange, .identical)
            } else if !largeEnough {
                (verdict, outcome) = (.noChange, residue)
            } else {
                (verdict, outcome) = (.noChange, .belowThreshold)
            }
        } else if largeEnough {
            (verdict, outcome) = (.regressed, .regressedFromNone)
        } else {
            (verdict, outcome) = (.noChange, residue)
        }
        let figures = Figures(
            id: id, metric: metric, thresholdPercent: threshold, baselineMedian: baseline, currentMedian: current,
            ratio: ratio)
        return figures.entry(verdict, .counted(baseline: baseline, current: current, ratio: ratio, outcome: outcome))
    }
}
