import Foundation
import PerfReport

/// Per-process medians (levels) of a benchmark measured in several processes (`run --processes N`),
/// the machine's common factor in each process that they give, and the report's account of them:
/// each benchmark's ``ProcessSpread``, and a warning when its processes differ by more than its
/// threshold, with the likely cause.
public enum ProcessFactors {
    /// The process of every sample, or nil when one has none (a run in one process).
    static func processes(of result: BenchmarkResult) -> [Int]? {
        var processes: [Int] = []
        processes.reserveCapacity(result.samples.count)
        for sample in result.samples {
            guard let process = sample.process else { return nil }
            processes.append(process)
        }
        return processes
    }

    /// The median of `values` in each process, in process order; `processes[i]` is the process
    /// of `values[i]`.
    static func medians(_ values: [Double], processes: [Int]) -> [Double] {
        let byProcess = medianByProcess(values, processes: processes)
        return byProcess.keys.sorted().map { byProcess[$0]! }
    }

    /// The median of `values` in each process, by process.
    static func medianByProcess(_ values: [Double], processes: [Int]) -> [Int: Double] {
        var byProcess: [Int: [Double]] = [:]
        for (value, process) in zip(values, processes) { byProcess[process, default: []].append(value) }
        return byProcess.mapValues { SampleStatistics.median($0) }
    }

    // MARK: - The machine's common factor

    /// Fewer other benchmarks in a process than this cannot tell the machine's factor from a
    /// benchmark's own swing: one benchmark's hash seed would pass for the machine.
    package static let minimumOthers = 3
    /// A process whose common factor lies beyond ±this percent is named in a comparison's words.
    package static let factorBoundPercent = 15.0

    /// What a second look measures besides `suspects` (of the run's `ids`, in order): ``minimumOthers``
    /// other benchmarks, or every other when fewer give each suspect ``minimumOthers`` others counting
    /// the other suspects, so that its process's machine factor can be told; none when the run has too
    /// few. (Two suspects of four once went alone and were "confirmed" 44–65% slower on raw levels.)
    package static func companions(of suspects: [String], among ids: [String]) -> [String] {
        let others = ids.filter { !suspects.contains($0) }
        if others.count >= minimumOthers { return Array(others.prefix(minimumOthers)) }
        return suspects.count - 1 + others.count >= minimumOthers ? others : []
    }

    /// Each benchmark's median of `metric` in each process it was measured in, by id, its samples
    /// first divided by the machine's factor in their round where it can be told (``RoundFactorModel``);
    /// a benchmark measured in one process (no process tags) has its median as process 0.
    static func levels(_ report: Report, metric: Metric) -> [String: [Int: Double]] {
        levels(report, rounds: RoundFactorModel(report, metric: metric), metric: metric)
    }

    /// ``levels(_:metric:)`` with the report's round factors already built.
    static func levels(_ report: Report, rounds: RoundFactorModel, metric: Metric) -> [String: [Int: Double]] {
        var levels: [String: [Int: Double]] = [:]
        for result in report.benchmarks {
            guard let values = Comparator.sampledValues(result, metric), !values.isEmpty else { continue }
            let processes = processes(of: result) ?? Array(repeating: 0, count: values.count)
            levels[result.id] = medianByProcess(rounds.divided(values, of: result), processes: processes)
        }
        return levels
    }

    /// Each benchmark's median over its processes' levels: what a process's level is divided by.
    static func reference(_ levels: [String: [Int: Double]]) -> [String: Double] {
        levels.mapValues { SampleStatistics.median(Array($0.values)) }
    }

    /// The machine's factor in each process of one benchmark, or why it cannot be told.
    enum CommonFactors: Equatable {
        case known([Int: Double])
        /// A process of the benchmark shared by only this many other benchmarks (fewer than ``minimumOthers``).
        case unknowable(fewestOthers: Int)
    }

    /// The machine's common factor in each process `id` was measured in: the median, over the other
    /// benchmarks measured in that process, of their level there divided by their `reference`
    /// (leave-one-out, so that `id`'s own change or swing is not in it). What the machine does to
    /// a process it does to each benchmark in it alike; a code change does it to one.
    static func commonFactors(
        of id: String, levels: [String: [Int: Double]], reference: [String: Double]
    ) -> CommonFactors {
        guard let own = levels[id], !own.isEmpty else { return .unknowable(fewestOthers: 0) }
        var factors: [Int: Double] = [:]
        var fewest = Int.max
        for process in own.keys {
            let ratios = levels.compactMap { other, byProcess -> Double? in
                guard other != id, let level = byProcess[process], let base = reference[other], base > 0, level > 0
                else { return nil }
                return level / base
            }
            fewest = min(fewest, ratios.count)
            if ratios.count >= minimumOthers { factors[process] = SampleStatistics.median(ratios) }
        }
        return fewest >= minimumOthers ? .known(factors) : .unknowable(fewestOthers: fewest)
    }

    /// Sets every benchmark's ``BenchmarkResult/processSpread`` from its samples' processes and adds
    /// a `process-spread-above-threshold` warning where the wall-time medians of its processes lie
    /// further apart than its threshold (`defaultThresholdPercent` unless it declares one).
    /// `deterministicHashing` says whether the processes ran with SWIFT_DETERMINISTIC_HASHING set,
    /// which rules out the hash seed as a cause.
    public static func annotate(_ report: inout Report, defaultThresholdPercent: Double, deterministicHashing: Bool) {
        let fixedSeed = fixedHashSeedSpread(report, defaultThresholdPercent: defaultThresholdPercent)
        var wallLevels: [Int: [Double]] = [:]
        for (index, result) in report.benchmarks.enumerated() {
            guard let processes = processes(of: result), Set(processes).count >= 2 else { continue }
            let wall = medians(result.wallNanosecondsPerOperation, processes: processes)
            let cpu = Comparator.sampledValues(result, .cpuTime).map { medians($0, processes: processes) }
            report.benchmarks[index].processSpread = ProcessSpread(
                wallMedians: wall, cpuMedians: cpu, spreadPercent: spreadPercent(wall))
            if let fixed = fixedSeed[result.id] {
                report.benchmarks[index].processSpread?.fixedHashSeedSpreadPercent = fixed.percent
                report.benchmarks[index].processSpread?.fixedHashSeedProcesses = fixed.processes
            }
            wallLevels[index] = wall
        }
        // The spread once each process's machine factor is divided out, beside the raw one.
        let levels = levels(report, metric: .wallTime).filter { $0.value.count >= 2 }
        let reference = reference(levels)
        for index in wallLevels.keys {
            let id = report.benchmarks[index].id
            guard case .known(let factors) = commonFactors(of: id, levels: levels, reference: reference),
                let byProcess = levels[id]
            else { continue }
            let processes = byProcess.keys.sorted()
            let ordered = processes.map { factors[$0]! }
            report.benchmarks[index].processSpread?.commonFactors = ordered
            report.benchmarks[index].processSpread?.relativeSpreadPercent = spreadPercent(
                zip(processes, ordered).map { byProcess[$0]! / $1 })
        }
        let machine = machineFactors(wallLevels)
        for (index, wall) in wallLevels {
            let result = report.benchmarks[index]
            let threshold = result.thresholdPercent ?? defaultThresholdPercent
            guard let spread = result.processSpread, spread.spreadPercent > threshold else { continue }
            // A baseline whose far-spread benchmarks ran in more processes has no factor common to all
            // benchmarks' processes: each one's own (leave-one-out) tells the machine there.
            let cause = likelyCause(
                wall, machine: machine ?? spread.commonFactors, threshold: threshold,
                deterministicHashing: deterministicHashing, fixedSeed: fixedSeed[result.id])
            report.benchmarks[index].processSpread?.likelyCause = cause
            let levels = wall.map { UnitFormatting.duration(nanoseconds: $0) }.joined(separator: ", ")
            report.benchmarks[index].warnings.append(
                Warning(
                    rule: "process-spread-above-threshold",
                    message:
                        "medians of \(wall.count) processes lie \(String(format: "%.1f", spread.spreadPercent))% apart "
                        + "(\(levels)), more than its \(String(format: "%g", threshold))% threshold: \(cause)"))
        }
    }

    /// The spread of each benchmark's processes in ``Report/fixedHashSeedProcesses`` (relative, where
    /// the machine's factor is known), and how many there were.
    static func fixedHashSeedSpread(_ report: Report, defaultThresholdPercent: Double)
        -> [String: (percent: Double, processes: Int)]
    {
        guard let fixed = report.fixedHashSeedProcesses else { return [:] }
        var alone = report
        alone.benchmarks = fixed
        alone.fixedHashSeedProcesses = nil
        alone.roundFactors = nil
        annotate(&alone, defaultThresholdPercent: defaultThresholdPercent, deterministicHashing: true)
        var spread: [String: (percent: Double, processes: Int)] = [:]
        for result in alone.benchmarks {
            guard let processes = result.processSpread else { continue }
            spread[result.id] = (processes.relativeSpreadPercent ?? processes.spreadPercent, processes.processes)
        }
        return spread
    }

    /// (largest / smallest − 1) × 100; 0 when the smallest is not positive.
    static func spreadPercent(_ medians: [Double]) -> Double {
        guard let low = medians.min(), let high = medians.max(), low > 0 else { return 0 }
        return (high / low - 1) * 100
    }

    /// How fast the machine was in each process relative to the run as a whole: the median, over
    /// the benchmarks, of a benchmark's process median divided by its median over all processes.
    /// Nil with fewer than three benchmarks (one benchmark's own swing would then be "the machine").
    static func machineFactors(_ levels: [Int: [Double]]) -> [Double]? {
        guard levels.count >= 3, let processes = levels.values.map(\.count).min(), processes >= 2,
            levels.values.allSatisfy({ $0.count == processes })
        else { return nil }
        let normalised = levels.values.map { medians -> [Double] in
            let overall = SampleStatistics.median(medians)
            return medians.map { overall > 0 ? $0 / overall : 1 }
        }
        return (0..<processes).map { process in SampleStatistics.median(normalised.map { $0[process] }) }
    }

    /// Why a benchmark's processes differ: when dividing out the machine's speed in each process
    /// brings them within the threshold, or halves their spread, mostly the machine; otherwise
    /// something of the benchmark's own: its hash seed when its processes with one fixed seed
    /// (`fixedSeed`, a baseline's ``Report/fixedHashSeedProcesses``) lie at most half as far apart.
    static func likelyCause(
        _ medians: [Double], machine: [Double]?, threshold: Double, deterministicHashing: Bool,
        fixedSeed: (percent: Double, processes: Int)? = nil
    ) -> String {
        let spread = spreadPercent(medians)
        guard let machine, machine.count == medians.count else {
            let hashing =
                deterministicHashing
                ? "" : "Swift's per-process hash seed if it hashes (SWIFT_DETERMINISTIC_HASHING=1 tells), "
            return "the machine or this benchmark, which fewer than three benchmarks cannot tell apart: a busy host, "
                + "neighbours or frequency; \(hashing)or its memory layout in each process"
        }
        if spreadPercent(zip(medians, machine).map { $0 / $1 }) <= max(threshold, spread / 2) {
            return "the machine: every benchmark of the run was slower or faster in the same processes "
                + "(a busy host, neighbours, frequency)"
        }
        if let fixedSeed {
            let relative = spreadPercent(zip(medians, machine).map { $0 / $1 })
            let fixed = "with one fixed hash seed its \(fixedSeed.processes) processes "
            if fixedSeed.percent <= max(threshold, relative / 2) {
                return "this benchmark alone: Swift's per-process hash seed (\(fixed)lie "
                    + "\(String(format: "%.1f", fixedSeed.percent))% apart; a change's cost can depend on the seed "
                    + "too, so one fixed seed does not stand for all)"
            }
            return "this benchmark alone, not its hash seed (\(fixed)still lie "
                + "\(String(format: "%.1f", fixedSeed.percent))% apart): its memory layout or alignment in each process"
        }
        if deterministicHashing {
            return "this benchmark alone, with hashing deterministic: its memory layout or alignment in each process"
        }
        return "this benchmark alone: Swift's per-process hash seed if it uses Set, Dictionary or another hashed "
            + "collection (SWIFT_DETERMINISTIC_HASHING=1 tells), otherwise its memory layout in each process"
    }
}

/// The name `ProcessFactors` had until 2026-11-29 (docs/changes.md).
@available(*, deprecated, renamed: "ProcessFactors")
public typealias ProcessLevels = ProcessFactors
