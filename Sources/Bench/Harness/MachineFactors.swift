import PerfReport

/// Both sides' per-process levels of every benchmark of a comparison in processes, for dividing
/// out the machine's common factor in each process: what the machine does to a process it does to
/// every benchmark in it, what a code change does it does to one (docs/regression-gate.md, "The
/// machine's factor, divided out").
struct MachineFactors {
    var baseline: [String: [Int: Double]]
    var current: [String: [Int: Double]]
    /// Each benchmark's median over the baseline's processes. Both sides are divided by it, so that
    /// a candidate's slow minute is divided out as the baseline's slow processes are.
    var reference: [String: Double]

    init(baseline: Report, current: Report, metric: Metric) {
        self.baseline = ProcessFactors.levels(baseline, metric: metric)
        self.current = ProcessFactors.levels(current, metric: metric)
        reference = ProcessFactors.reference(self.baseline)
    }

    /// The levels of `metric` and of what a comparison falls back on (CPU time for a busy side, wall
    /// time), by metric; empty unless a side was measured in processes.
    static func of(baseline: Report, current: Report, metric: Metric) -> [Metric: MachineFactors] {
        let inProcesses = (baseline.benchmarks + current.benchmarks).contains { result in
            result.samples.contains { $0.process != nil }
        }
        guard inProcesses else { return [:] }
        var levels: [Metric: MachineFactors] = [:]
        for sampled in Set([metric, .wallTime, .cpuTime]) where Comparator.exactCount(sampled) == nil {
            levels[sampled] = MachineFactors(baseline: baseline, current: current, metric: sampled)
        }
        return levels
    }

    /// Divides `id`'s level in each process of each side by the machine's factor there and says so
    /// (with the raw levels' interval from `rawInterval`), its levels those of samples divided by their
    /// round's factor (``ProcessFactors/levels(_:metric:)``); when either side's factor cannot be told,
    /// leaves both raw and says why.
    func divide(
        id: String, baseline old: inout [Int: Double], current new: inout [Int: Double],
        rawInterval: (ComparisonReason.PerSide<[Double]>) -> ConfidenceInterval?
    ) -> ComparisonReason.ProcessLevelBasis {
        let oldFactors = ProcessFactors.commonFactors(of: id, levels: baseline, reference: reference)
        let newFactors = ProcessFactors.commonFactors(of: id, levels: current, reference: reference)
        guard case .known(let oldByProcess) = oldFactors, case .known(let newByProcess) = newFactors,
            Set(old.keys).isSubset(of: oldByProcess.keys), Set(new.keys).isSubset(of: newByProcess.keys)
        else {
            let fewest = [oldFactors, newFactors].map { factors -> Int in
                if case .unknowable(let fewest) = factors { return fewest }
                return Int.max
            }
            return .raw(
                otherBenchmarks: min(fewest.min() ?? 0, ProcessFactors.minimumOthers - 1),
                minimum: ProcessFactors.minimumOthers)
        }
        let raw = ComparisonReason.PerSide(
            baseline: old.keys.sorted().map { old[$0]! }, current: new.keys.sorted().map { new[$0]! })
        // The levels the factors came from: each sample divided by its round's factor first.
        if let levels = baseline[id], Set(levels.keys) == Set(old.keys) { old = levels }
        if let levels = current[id], Set(levels.keys) == Set(new.keys) { new = levels }
        for (process, factor) in oldByProcess where old[process] != nil { old[process]! /= factor }
        for (process, factor) in newByProcess where new[process] != nil { new[process]! /= factor }
        return .relative(
            factors: ComparisonReason.PerSide(
                baseline: old.keys.sorted().map { oldByProcess[$0]! },
                current: new.keys.sorted().map { newByProcess[$0]! }),
            rawInterval: rawInterval(raw), boundPercent: ProcessFactors.factorBoundPercent)
    }
}
