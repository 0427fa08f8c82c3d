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
    /// How far apart the machine's factors in the rounds of each of the current side's processes lie.
    var currentRoundSpread: [Int: Double]

    /// Round factors within this percent of each other: the machine was steady through the process,
    /// so a factor beyond the bound is a level (another host, another frequency), which divides out.
    static let steadyRoundSpreadPercent = 10.0

    init(baseline: Report, current: Report, metric: Metric) {
        let currentRounds = RoundFactorModel(current, metric: metric)
        self.baseline = ProcessFactors.levels(baseline, metric: metric)
        self.current = ProcessFactors.levels(current, rounds: currentRounds, metric: metric)
        reference = ProcessFactors.reference(self.baseline)
        currentRoundSpread = currentRounds.roundSpreadPercent()
    }

    /// The ``ComparisonReason/Review/machineMoved(processes:of:lowest:highest:boundPercent:)`` of a
    /// comparison on relative levels whose current `factors` (by process) lie beyond the bound in more
    /// than half of its processes, unless the machine was steady within each of those (a move of ×1.16–1.60
    /// in the candidate's processes, a neighbour on and off every 4 s, called an unchanged sort 5–14%
    /// faster three times in ten, 2026-11-29); nil otherwise.
    func moved(_ factors: [Int: Double]) -> ComparisonReason.Review? {
        let beyond = factors.filter { Self.beyondTheBound($0.value) }
        guard beyond.count * 2 > factors.count,
            beyond.keys.contains(where: { (currentRoundSpread[$0] ?? 0) > Self.steadyRoundSpreadPercent })
        else { return nil }
        return .machineMoved(
            processes: beyond.count, of: factors.count, lowest: beyond.values.min()!, highest: beyond.values.max()!,
            boundPercent: ProcessFactors.factorBoundPercent)
    }

    /// The current side's processes whose factor lay beyond the bound and moved within them, when
    /// they are fewer than half and at least ``minimumKeptProcesses`` others remain: left out of a
    /// comparison on relative levels, with the review that says so. One such process at ×1.61 among
    /// three called an unchanged sort 6.5% faster, 2026-12-07 (the neighbour slows each benchmark by
    /// its own amount).
    func leftOut(_ factors: [Int: Double]) -> (processes: Set<Int>, review: ComparisonReason.Review)? {
        let moving = factors.filter {
            Self.beyondTheBound($0.value) && (currentRoundSpread[$0.key] ?? 0) > Self.steadyRoundSpreadPercent
        }
        guard !moving.isEmpty, moving.count * 2 <= factors.count,
            factors.count - moving.count >= Self.minimumKeptProcesses
        else { return nil }
        let review = ComparisonReason.Review.processesLeftOut(
            processes: moving.count, of: factors.count, lowest: moving.values.min()!,
            highest: moving.values.max()!, boundPercent: ProcessFactors.factorBoundPercent)
        return (Set(moving.keys), review)
    }

    /// Processes a comparison keeps when it leaves moved ones out.
    static let minimumKeptProcesses = 2

    static func beyondTheBound(_ factor: Double) -> Bool {
        let bound = 1 + ProcessFactors.factorBoundPercent / 100
        return factor > bound || factor < 1 / bound
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
    ) -> (basis: ComparisonReason.ProcessLevelBasis, moved: ComparisonReason.Review?, leftOut: ComparisonReason.Review?)
    {
        let oldFactors = ProcessFactors.commonFactors(of: id, levels: baseline, reference: reference)
        let newFactors = ProcessFactors.commonFactors(of: id, levels: current, reference: reference)
        guard case .known(let oldByProcess) = oldFactors, case .known(let newByProcess) = newFactors,
            Set(old.keys).isSubset(of: oldByProcess.keys), Set(new.keys).isSubset(of: newByProcess.keys)
        else {
            let fewest = [oldFactors, newFactors].map { factors -> Int in
                if case .unknowable(let fewest) = factors { return fewest }
                return Int.max
            }
            let basis = ComparisonReason.ProcessLevelBasis.raw(
                otherBenchmarks: min(fewest.min() ?? 0, ProcessFactors.minimumOthers - 1),
                minimum: ProcessFactors.minimumOthers)
            return (basis, nil, nil)
        }
        let measured = newByProcess.filter { new[$0.key] != nil }
        let movedReview = moved(measured)
        var leftOutReview: ComparisonReason.Review?
        if movedReview == nil, let (processes, review) = leftOut(measured) {
            // Out of every figure that follows: the levels, their factors, the raw interval.
            for process in processes { new[process] = nil }
            leftOutReview = review
        }
        let raw = ComparisonReason.PerSide(
            baseline: old.keys.sorted().map { old[$0]! }, current: new.keys.sorted().map { new[$0]! })
        // The levels the factors came from: each sample divided by its round's factor first.
        if let levels = baseline[id], Set(levels.keys) == Set(old.keys) { old = levels }
        if let levels = current[id] {
            let kept = levels.filter { new[$0.key] != nil }
            if Set(kept.keys) == Set(new.keys) { new = kept }
        }
        for (process, factor) in oldByProcess where old[process] != nil { old[process]! /= factor }
        for (process, factor) in newByProcess where new[process] != nil { new[process]! /= factor }
        let basis = ComparisonReason.ProcessLevelBasis.relative(
            factors: ComparisonReason.PerSide(
                baseline: old.keys.sorted().map { oldByProcess[$0]! },
                current: new.keys.sorted().map { newByProcess[$0]! }),
            rawInterval: rawInterval(raw), boundPercent: ProcessFactors.factorBoundPercent)
        return (basis, movedReview, leftOutReview)
    }
}
