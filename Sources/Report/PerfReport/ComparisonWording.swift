import Foundation

/// The one place a comparison's reasons are put into words. The gate records a
/// ``ComparisonReason``; the entry's `explanation` (what the terminal, the markdown summary and the
/// HTML page show) is this wording of it, so a sentence, a metric's name or a p-value reads the same
/// in every output.
public enum ComparisonWording {
    /// The whole explanation of an entry's verdict on `metric` with its threshold: what was
    /// compared instead (if anything), the finding with its figures and the process levels it
    /// stood on, then each review in turn.
    public static func explanation(_ reason: ComparisonReason, metric: Metric, thresholdPercent: Double) -> String {
        let finding =
            (reason.substitution.map(substitution) ?? "")
            + self.finding(reason.finding, metric: metric, threshold: percent(thresholdPercent))
            + (reason.processLevels.map(processLevels) ?? "")
        return reason.reviews.reduce(finding) { text, review in applying(review, to: text) }
    }

    /// What limits a whole comparison, in one line (the findings and the summary print it).
    public static func caveat(_ caveat: Comparison.Caveat) -> String {
        switch caveat {
        case .singleProcess(let sides):
            let who =
                sides.count == 2
                ? "the baseline and this run were each" : sides.first == .baseline ? "the baseline was" : "this run was"
            return "\(who) measured in one process, so how far apart processes lie (hash seed, memory layout, "
                + "the machine's minute) cannot be told from a change; measure in several: "
                + "run --processes 10 for the baseline, --processes 3 for the candidate"
        }
    }

    /// The findings' lines on the machine within a process: its jumps, or why none could be told.
    /// The terminal, the HTML page and the markdown summary print them.
    public static func roundNotes(_ findings: Findings) -> [String] {
        var notes: [String] = []
        if !findings.roundJumps.isEmpty, let bound = findings.roundBoundPercent {
            notes.append(roundJumps(findings.roundJumps, boundPercent: bound))
        }
        if let minimum = findings.roundsUnknowable { notes.append(roundsUnknowable(minimumBenchmarks: minimum)) }
        return notes
    }

    /// The rounds in which the machine moved within a process, in one line (the findings print it):
    /// "the machine moved within a process (a neighbour came or went): process 2 round 3 ×1.300, …".
    /// Rounds and processes are counted from 1, as the progress line counts them.
    public static func roundJumps(_ jumps: [RoundFactors.Jump], boundPercent: Double) -> String {
        let rounds = jumps.map { jump in
            let process = jump.process.map { "process \($0 + 1) " } ?? ""
            return "\(process)round \(jump.round + 1) ×\(ratio(jump.factor))"
        }
        return "the machine moved within a process (a neighbour came or went): \(rounds.joined(separator: ", ")), "
            + "beyond ±\(percent(boundPercent)) of the process's level over its rounds; a comparison in processes "
            + "divides each sample by its round's factor, from the other benchmarks measured in that round"
    }

    /// Why no round's factor could be told, in one line (the findings print it beside a comparison).
    public static func roundsUnknowable(minimumBenchmarks: Int) -> String {
        "whether the machine moved within a process cannot be told: fewer than \(minimumBenchmarks) benchmarks "
            + "were measured in each round, so the gate took each round's samples as measured"
    }

    /// `text` with what a review found: most add a clause after it; a re-run's verdict frames it.
    static func applying(_ review: ComparisonReason.Review, to text: String) -> String {
        switch review {
        case .busyMachineInconclusive:
            return text + "; inconclusive: the machine was busy, measure again when it is quieter"
        case .busyMachineCannotTell:
            return text
                + "; inconclusive: neighbours raise CPU time too, by a different amount for each benchmark, so a "
                + "slowdown on the busier side cannot be told from them; measure again when the machine is quieter"
        case .beyondSharedSlowdown(let count, let median, let relative):
            return text
                + "; \(others(count, median)), and this one \(ratio(relative)) times that: beyond the threshold still"
        case .withinSharedSlowdown(let count, let median, let relative):
            return text
                + "; but \(others(count, median)), this one \(ratio(relative)) times that, not shown beyond the "
                + "threshold: the machine's "
                + "speed moved between the two measurements, or a change slowed everything, which time cannot "
                + "tell apart (instruction counts, or both builds measured interleaved, can)"
        case .rerunMissing:
            return text + "; the re-run did not measure it, so the regression stands"
        case .rerunConfirmed(let first):
            return "confirmed by a re-run: \(text) (first run \(change(first)))"
        case .rerunDidNotConfirm(let first):
            return "the first run's regression (\(change(first))) was not confirmed by a re-run: \(text)"
        case .moreProcesses(let first, let added, let looks, let interleaved, let decided):
            let before = first.map { "after \($0.current) process\($0.current == 1 ? "" : "es")" } ?? "at first"
            let more =
                (interleaved
                    ? "\(added) fresh process\(added == 1 ? "" : "es") of each build, alternating"
                    : "\(added) more process\(added == 1 ? "" : "es")") + " (\(looks) look\(looks == 1 ? "" : "s"))"
            return decided
                ? "undecided \(before), decided by \(more): \(text)"
                : "undecided \(before), and still after \(more): \(text)"
        case .machineMoved(let moved, let count, let lowest, let highest, let bound):
            return text
                + "; inconclusive: the machine's factor lay beyond ±\(String(format: "%g", bound))% in \(moved) of "
                + "this run's \(count) processes (×\(String(format: "%.2f", lowest))–\(String(format: "%.2f", highest))) "
                + "and moved within them, which divides out inexactly; measure again when the machine is steadier, "
                + "or give the baseline's build (--baseline-binary)"
        case .processesLeftOut(let left, let count, let lowest, let highest, let bound):
            return text
                + "; \(left) of this run's \(count) processes left out: the machine's factor lay beyond "
                + "±\(String(format: "%g", bound))% in \(left == 1 ? "it" : "them") (×\(String(format: "%.2f", lowest))"
                + "\(lowest == highest ? "" : "–\(String(format: "%.2f", highest))")) and moved within, which divides out inexactly"
        case .beyondSampleWobble(let spread):
            return text
                + "; this run's samples disagreed by \(String(format: "%.2f", spread))%, but every one lay beyond "
                + "the threshold"
        }
    }

    /// A ratio of medians as a change in words: "12.0% slower", "3.1% more allocations".
    public static func describe(ratio: Double, metric: Metric) -> String {
        if ratio == 1 { return "unchanged" }
        let isTime = metric == .wallTime || metric == .cpuTime || metric == .cycles
        if ratio == 0 {
            // "inf% fewer" says nothing: the count went to zero.
            return isTime ? "dropped to zero" : "none left (was above zero)"
        }
        let amount = percent(changePercent(ratio))
        return isTime
            ? "\(amount) \(ratio > 1 ? "slower" : "faster")"
            : "\(amount) \(ratio > 1 ? "more" : "fewer") \(metric.displayName)"
    }

    /// The size of a change in percent, measured so that it is comparable with the threshold:
    /// slower by (r − 1), faster by (1/r − 1). A 5% threshold then means "5% slower" or "5% faster".
    public static func changePercent(_ ratio: Double) -> Double {
        ratio >= 1 ? (ratio - 1) * 100 : (1 / ratio - 1) * 100
    }

    // MARK: - Parts

    static func substitution(_ substitution: ComparisonReason.Substitution) -> String {
        switch substitution {
        case .busyMachine(let onCPU, let switches):
            return "the machine was busy (\(busyEvidence(onCPU: onCPU, switchesPerSecond: switches))), "
                + "so CPU time was compared: "
        case .notMeasured(let metric):
            return "\(quantity(metric)) not measured on both sides, so wall time was compared: "
        }
    }

    static func finding(_ finding: ComparisonReason.Finding, metric: Metric, threshold: String) -> String {
        switch finding {
        case .worded(let text):
            return text
        case .onlyInBaseline:
            return "only in the baseline: removed"
        case .onlyInCurrentRun:
            return "only in the current run: added"
        case .noSamples(let side):
            return "no samples in \(side == .baseline ? "the baseline" : "the current run"), "
                + "so a change cannot be ruled out"
        case .belowMeasurableFloor(let nanoseconds):
            return "both medians are below \(nanoseconds) ns/op: nothing measurable to compare"
        case .processSpreadUnknown:
            return "measured in several processes, but how far apart separate processes lie cannot be "
                + "estimated from these, so a change cannot be ruled out"
        case .tested(let ratio, let interval, let processes, let p, let outcome):
            let between = processes.map { " between processes (\($0.baseline) vs \($0.current))" } ?? ""
            return "\(describe(ratio: ratio, metric: metric)) (ratio \(self.ratio(ratio)), "
                + "CI\(between) \(self.ratio(interval.lower))…\(self.ratio(interval.upper))), \(pValue(p)): "
                + self.outcome(outcome, ratio: ratio, threshold: threshold)
        case .ratioUndefined(let baselineMedian, let p):
            return "baseline median is \(value(baselineMedian)) \(metric.unitPerOperation), too small to measure, "
                + "so the ratio is undefined and a change cannot be ruled out (\(pValue(p)))"
        case .counted(let baseline, let current, let ratio, let outcome):
            let noun = quantity(metric)
            let values = "\(value(baseline)) → \(value(current)) \(noun)"
            let change = ratio.map { "\(values) (\(describe(ratio: $0, metric: metric)))" } ?? values
            return "\(change): \(self.outcome(outcome, threshold: threshold)); "
                + "\(noun) are deterministic, so no significance test is needed"
        }
    }

    /// The clause on the process levels a comparison in processes stood on: relative to each
    /// process's machine factor (naming factors beyond the bound), or raw, and why.
    static func processLevels(_ basis: ComparisonReason.ProcessLevelBasis) -> String {
        switch basis {
        case .relative(let factors, let rawInterval, let bound):
            let raw = rawInterval.map { " (raw levels: CI \(ratio($0.lower))…\(ratio($0.upper)))" } ?? ""
            let limit = 1 + bound / 100
            let moved = [(ComparisonReason.Side.baseline, factors.baseline), (.current, factors.current)]
                .flatMap { side, factors in
                    factors.enumerated().filter { $0.element > limit || $0.element < 1 / limit }.map {
                        "\(side == .baseline ? "baseline" : "this run's") process \($0.offset + 1) ×\(ratio($0.element))"
                    }
                }
            let currentMoved = factors.current.contains { $0 > limit || $0 < 1 / limit }
            let beyond =
                moved.isEmpty
                ? ""
                : "; the machine's factor moved beyond ±\(percent(bound)) in \(moved.joined(separator: ", "))"
                    + (currentMoved
                        ? " (in this run the machine, or a change to every benchmark, which time cannot tell apart)"
                        : "")
            return "; levels relative to the machine's factor in each process, from the other benchmarks "
                + "measured in it\(raw)\(beyond)"
        case .raw(let others, let minimum):
            return "; raw process levels: only \(others) other benchmark\(others == 1 ? "" : "s") shared a process, "
                + "and \(minimum) are needed to tell the machine's factor from this benchmark's own"
        }
    }

    /// What the test and the ratio's interval found: "regressed beyond the 5.0% threshold".
    static func outcome(_ outcome: ComparisonReason.TestedOutcome, ratio: Double, threshold: String) -> String {
        switch outcome {
        case .regressed: return "regressed beyond the \(threshold) threshold"
        case .improved: return "improved beyond the \(threshold) threshold"
        case .intervalIncludesNoChange:
            return "significant by the rank test, but the ratio's interval includes no change"
        case .belowThreshold:
            return "changed by \(percent(changePercent(ratio))), below the \(threshold) threshold"
        case .belowThresholdIntervalReachesBeyond:
            return "changed by \(percent(changePercent(ratio))), below the \(threshold) threshold, but the interval "
                + "reaches beyond it, so a larger change cannot be ruled out"
        case .intervalReachesBeyondThreshold:
            return "not significant, but the interval reaches beyond ±\(threshold), so a change cannot be ruled out"
        case .noSignificantChange:
            return "no significant change, and the interval stays within ±\(threshold)"
        }
    }

    /// What an exact count's change amounts to: "regressed beyond the 2.0% threshold", "identical".
    static func outcome(_ outcome: ComparisonReason.CountedOutcome, threshold: String) -> String {
        switch outcome {
        case .regressed: "regressed beyond the \(threshold) threshold"
        case .improved: "improved beyond the \(threshold) threshold"
        case .identical: "identical"
        case .belowThreshold: "below the \(threshold) threshold"
        case .regressedFromNone: "regressed from none"
        case .belowMinimumDifference(let minimum):
            "a difference below \(value(minimum)) per operation is runtime residue, not the benchmarked code"
        }
    }

    /// "this run was on a CPU for 52% of its wall time (the baseline 100%), 120 involuntary context
    /// switches/s (the baseline 2)".
    static func busyEvidence(
        onCPU: ComparisonReason.PerSide<Double>, switchesPerSecond switches: ComparisonReason.PerSide<Double>
    ) -> String {
        let currentIsBusier = onCPU.current < onCPU.baseline
        let (side, other) = currentIsBusier ? ("this run", "the baseline") : ("the baseline", "this run")
        let baseline = (onCPU: onCPU.baseline, switches: switches.baseline)
        let current = (onCPU: onCPU.current, switches: switches.current)
        let (busy, quiet) = currentIsBusier ? (current, baseline) : (baseline, current)
        return "\(side) was on a CPU for \(share(busy.onCPU)) of its wall time (\(other) \(share(quiet.onCPU))), "
            + "\(whole(busy.switches)) involuntary context switches/s (\(other) \(whole(quiet.switches)))"
    }

    static func others(_ count: Int, _ medianRatio: Double) -> String {
        "the other \(count) benchmarks were slower too (median ratio \(ratio(medianRatio)))"
    }

    /// "p = 0.0123", with the adjustment when several benchmarks were tested together.
    static func pValue(_ p: ComparisonReason.AdjustedPValue) -> String {
        let text = UnitFormatting.pValue(p.value)
        return p.tests > 1 ? "\(text) after Holm over \(p.tests) benchmarks" : text
    }

    /// What a metric counts, as the sentences about exact counts say it: "instructions per operation".
    static func quantity(_ metric: Metric) -> String {
        switch metric {
        case .instructions, .allocations: "\(metric.displayName) per operation"
        case .wallTime, .cpuTime, .cycles, .contextSwitches: metric.displayName
        }
    }

    static func change(_ ratio: Double?) -> String { ratio.map { UnitFormatting.change(ratio: $0) } ?? "?" }

    static func percent(_ percent: Double) -> String { String(format: "%.1f%%", percent) }

    static func ratio(_ ratio: Double) -> String { String(format: "%.3f", ratio) }

    static func value(_ value: Double) -> String { String(format: "%.4g", value) }

    static func share(_ fraction: Double) -> String { "\(Int((fraction * 100).rounded()))%" }

    static func whole(_ value: Double) -> String { "\(Int(value.rounded()))" }
}

// MARK: - Where a count grew

extension ComparisonWording {
    /// The heading and one line per grown function, e.g. `Heap._bubbleDown +1,204 instr/op
    /// (exclusive, +38 %; inclusive +1,310)`; a flat profile says that no single function grew.
    /// `name` dresses a function's name (a code span in markdown).
    public static func functionDifferential(
        _ differential: FunctionDifferential, name: (String) -> String = { $0 }
    ) -> (heading: String, lines: [String]) {
        let growth = differential.currentTotal - differential.baseTotal
        if differential.isSampled {
            guard !differential.grown.isEmpty else {
                return (
                    "no function's share of the sampled CPU time grew beyond its interval: the profiles' "
                        + "\(signed(growth)) ns/op is spread over the functions alike (the machine, layout or "
                        + "data), or lies in the ones each profile left out", []
                )
            }
            return (
                "grew most by share of the sampled CPU time (ns per operation, new − base, intervals 95% for the list; "
                    + "\(differential.baseSamples ?? 0) and \(differential.currentSamples ?? 0) samples):",
                differential.grown.map { functionChange($0, name: name) }
            )
        }
        guard !differential.grown.isEmpty else {
            return (
                "no single function grew: the profiles' \(signed(growth)) instr/op is spread thinly over "
                    + "many functions, or lies in the ones each profile left out", []
            )
        }
        return (
            "grew most (instructions per operation, new − base):",
            differential.grown.map { functionChange($0, name: name) }
        )
    }

    /// The machine-code lines under a grown function (e.g. `compiled code: now calls swift_retain
    /// 2× (was 0: reference counting)`); none when the binaries were not compared.
    public static func compiledCode(of change: FunctionDifferential.Change) -> [String] {
        (change.compiledCode ?? []).map { "compiled code: " + $0 }
    }

    /// Why a differential carries no compiled-code lines: `reason` nil when no baseline binary was given.
    public static func compiledCodeNotCompared(reason: String?) -> String {
        guard let reason else {
            return "compiled code not compared: give the baseline's executable with --baseline-binary, "
                + "or gate with `perfkit ci --against REV`, which builds both"
        }
        return "compiled code not compared: \(reason)"
    }

    /// Why a time regression against a stored baseline carries no sampled time differential.
    public static let noTimeProfiles =
        "time regressions not profiled: the baseline has no time profiles; give its executable with "
        + "--baseline-binary, or record the baseline with `run --profile`"

    /// Why the gate's time regressions carry no sampled time differential: taking the profiles failed.
    public static func timeProfilesFailed(_ reason: String) -> String {
        "regressions not profiled by sampled time: \(reason)"
    }

    /// Nothing grew on its own and the largest functions' machine code is the same in both builds.
    public static func noCodeChange(in functions: [String]) -> String {
        "no code change found in \(functions.joined(separator: ", ")): layout, data or the machine"
    }

    /// One function's growth: exclusive (with its share of the base's), then inclusive.
    public static func functionChange(_ change: FunctionDifferential.Change, name: (String) -> String = { $0 })
        -> String
    {
        var text = "\(name(change.name)) \(signed(change.exclusiveGrowth)) instr/op (exclusive"
        if let low = change.growthLow, let high = change.growthHigh {
            text =
                "\(name(change.name)) \(signed(change.exclusiveGrowth)) ns/op sampled "
                + "[\(signed(low)), \(signed(high))] (exclusive"
        }
        if let base = change.baseExclusive, base > 0 {
            text += ", " + UnitFormatting.change(ratio: (change.currentExclusive ?? 0) / base)
        } else {
            text += change.baseExclusive == nil ? ", not among the base's top functions" : ", new"
        }
        if let inclusive = change.inclusiveGrowth, change.baseInclusive != nil {
            text += "; inclusive \(signed(inclusive))"
        }
        return text + ")"
    }

    /// A signed instruction count with thousands separators, e.g. `+1,204`, `−3`.
    static func signed(_ value: Double) -> String {
        let whole = Int(value.rounded())
        let digits = String(abs(whole))
        var grouped = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { grouped += "," }
            grouped.append(digit)
        }
        return (whole < 0 ? "−" : "+") + grouped
    }
}
