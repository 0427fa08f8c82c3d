import PerfReport

/// Gates a run on a committed baseline by machine-stable metrics only.
///
/// Wall time measured on another machine (or on this one under other neighbours) says little
/// about this run, so a committed baseline is compared by exact counts: instructions (callgrind or
/// hardware counters) and allocations. A benchmark that lacks a gated metric on either side, or
/// exists on one side only (a suite merged after the baseline was made), is skipped with a note,
/// never failed; time is compared build against build by `perfkit ci` instead.
public enum BaselineGate {
    /// The metrics that mean the same on every run of the same binary.
    public static let stableMetrics: [Metric] = [.instructions, .allocations]

    /// `remedies` finish the notes on skipped benchmarks with what to do about them.
    package static func compare(
        baseline: Report, current: Report, metrics: [Metric], comparator: Comparator, remedies: Remedies = Remedies()
    ) -> Comparison {
        let baselineByID = Dictionary(baseline.benchmarks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let currentByID = Dictionary(current.benchmarks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var skipped: [String] = []
        for id in Set(baselineByID.keys).symmetricDifference(currentByID.keys).sorted() {
            skipped.append(
                baselineByID[id] == nil
                    ? "\(id): " + Remedies.reason("not in the baseline", remedy: remedies.refreshBaseline)
                    : "\(id): in the baseline but not in this run")
        }

        var entries: [ComparisonEntry] = []
        var wobbly: [String: Double] = [:]
        for metric in metrics {
            // Compare only what both sides measured the same way; the comparator would fall back to
            // wall time for the rest, which is exactly what a committed baseline must not gate on.
            var comparable: [String] = []
            for id in Set(baselineByID.keys).intersection(currentByID.keys).sorted() {
                let (old, new) = (baselineByID[id]!, currentByID[id]!)
                if let reason = whyNotComparable(old, new, metric: metric, remedy: remedies.measure[metric]) {
                    if metric == .instructions,
                        let spread = beyondWobble(old, new, threshold: comparator.thresholdPercent)
                    {
                        wobbly[id] = spread
                        comparable.append(id)
                    } else {
                        skipped.append("\(id): \(reason)")
                    }
                } else {
                    comparable.append(id)
                }
            }
            let ids = Set(comparable)
            var old = baseline
            old.benchmarks = baseline.benchmarks.filter { ids.contains($0.id) }
            var new = current
            new.benchmarks = current.benchmarks.filter { ids.contains($0.id) }
            entries += comparator.compare(baseline: old, current: new, metric: metric).entries.map { entry in
                guard metric == .instructions, let spread = wobbly[entry.id] else { return entry }
                var entry = entry
                entry.review(.beyondSampleWobble(spreadPercent: spread))
                return entry
            }
        }
        var comparison = Comparison(
            baselineCreatedAt: baseline.createdAt, baselineEnvironment: baseline.environment,
            thresholdPercent: comparator.thresholdPercent, alpha: comparator.alpha,
            multipleComparisonControl: Comparator.multipleComparisonControl, entries: entries)
        comparison.skipped = skipped
        return comparison
    }

    /// The spread of this run's instruction counts between its samples, when only that kept it from
    /// being gated and every sample lies beyond the threshold on the same side of a deterministic
    /// baseline: a wobble of 0.6% does not hide a +5% that each sample shows.
    static func beyondWobble(_ baseline: BenchmarkResult, _ current: BenchmarkResult, threshold: Double) -> Double? {
        guard let base = baseline.instructionsPerOperation, base > 0,
            InstructionDeterminism.unstableReason(baseline) == nil,
            baseline.instructionsSource == current.instructionsSource,
            let counts = InstructionDeterminism.perOperation(current), let low = counts.min(), let high = counts.max()
        else { return nil }
        let limit = 1 + (current.thresholdPercent ?? baseline.thresholdPercent ?? threshold) / 100
        guard low / base >= limit || high / base <= 1 / limit else { return nil }
        return InstructionDeterminism.spreadPercent(counts)
    }

    /// Why `metric` cannot be compared exactly for this benchmark, or nil when it can; `remedy` says
    /// how to count it when this run did not.
    static func whyNotComparable(
        _ baseline: BenchmarkResult, _ current: BenchmarkResult, metric: Metric, remedy: String?
    ) -> String? {
        switch metric {
        case .instructions:
            guard baseline.instructionsPerOperation != nil else { return "instructions not counted in the baseline" }
            guard current.instructionsPerOperation != nil else {
                return Remedies.reason("instructions not counted in this run", remedy: remedy)
            }
            if let old = baseline.instructionsSource, let new = current.instructionsSource, old != new {
                return "instructions counted by \(old) in the baseline but by \(new) here, not comparable"
            }
            if let reason = InstructionDeterminism.unstableReason(baseline) { return "in the baseline, \(reason)" }
            if let spread = InstructionDeterminism.sampleSpreadPercent(current),
                spread > InstructionDeterminism.tolerancePercent
            {
                return "instructions per operation moved by \(InstructionDeterminism.format(spread))% between this "
                    + "run's samples (more than \(InstructionDeterminism.format(InstructionDeterminism.tolerancePercent))%); "
                    + "not gated"
            }
            return nil
        case .allocations:
            guard baseline.allocationsPerOperation != nil else { return "allocations not counted in the baseline" }
            guard current.allocationsPerOperation != nil else {
                return Remedies.reason("allocations not counted in this run", remedy: remedy)
            }
            if let reason = InstructionDeterminism.unstableAllocationsReason(baseline) {
                return "in the baseline, \(reason)"
            }
            return nil
        case .wallTime, .cpuTime, .cycles, .contextSwitches:
            return "\(metric.rawValue) is not machine-stable, so it is not gated on a committed baseline"
        }
    }
}
