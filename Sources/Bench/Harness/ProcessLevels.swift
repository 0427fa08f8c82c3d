import Foundation
import PerfReport

/// Per-process medians of a benchmark measured in several processes (`run --processes N`), and
/// the report's account of them: each benchmark's ``ProcessSpread``, and a warning when its
/// processes differ by more than its threshold, with the likely cause.
public enum ProcessLevels {
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
        var byProcess: [Int: [Double]] = [:]
        for (value, process) in zip(values, processes) { byProcess[process, default: []].append(value) }
        return byProcess.keys.sorted().map { SampleStatistics.median(byProcess[$0]!) }
    }

    /// Sets every benchmark's ``BenchmarkResult/processSpread`` from its samples' processes and adds
    /// a `process-spread-above-threshold` warning where the wall-time medians of its processes lie
    /// further apart than its threshold (`defaultThresholdPercent` unless it declares one).
    /// `deterministicHashing` says whether the processes ran with SWIFT_DETERMINISTIC_HASHING set,
    /// which rules out the hash seed as a cause.
    public static func annotate(_ report: inout Report, defaultThresholdPercent: Double, deterministicHashing: Bool) {
        var wallLevels: [Int: [Double]] = [:]
        for (index, result) in report.benchmarks.enumerated() {
            guard let processes = processes(of: result), Set(processes).count >= 2 else { continue }
            let wall = medians(result.wallNanosecondsPerOperation, processes: processes)
            let cpu = Comparator.sampledValues(result, .cpuTime).map { medians($0, processes: processes) }
            report.benchmarks[index].processSpread = ProcessSpread(
                wallMedians: wall, cpuMedians: cpu, spreadPercent: spreadPercent(wall))
            wallLevels[index] = wall
        }
        let machine = machineFactors(wallLevels)
        for (index, wall) in wallLevels {
            let result = report.benchmarks[index]
            let threshold = result.thresholdPercent ?? defaultThresholdPercent
            guard let spread = result.processSpread, spread.spreadPercent > threshold else { continue }
            let cause = likelyCause(
                wall, machine: machine, threshold: threshold, deterministicHashing: deterministicHashing)
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
    /// something of the benchmark's own.
    static func likelyCause(
        _ medians: [Double], machine: [Double]?, threshold: Double, deterministicHashing: Bool
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
        if deterministicHashing {
            return "this benchmark alone, with hashing deterministic: its memory layout or alignment in each process"
        }
        return "this benchmark alone: Swift's per-process hash seed if it uses Set, Dictionary or another hashed "
            + "collection (SWIFT_DETERMINISTIC_HASHING=1 tells), otherwise its memory layout in each process"
    }
}
