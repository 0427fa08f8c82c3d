import Foundation
import PerfReport

/// Which instruction counts are deterministic enough to gate on: under callgrind, threaded work counts
/// the pool's waiting and some library paths depend on addresses (a large `memcpy`: 27% between two
/// processes). `perfkit baseline update` marks every benchmark whose counts moved by more than
/// `tolerancePercent`; the gate skips those with a note, as it does a current run whose samples disagree.
public enum InstructionDeterminism {
    public static let rule = "instructions-not-deterministic"
    /// The same for allocation counts (a cache that fills differently from run to run).
    public static let allocationsRule = "allocations-not-deterministic"
    /// Far below the gate's threshold (2% in CI): a count that moves more than this on its own is
    /// not a count to gate on.
    public static let tolerancePercent = 0.5

    /// The largest relative difference in percent between the per-operation counts of `values`.
    static func spreadPercent(_ values: [Double]) -> Double {
        guard let low = values.min(), let high = values.max(), high > 0 else { return 0 }
        return low > 0 ? (high - low) / low * 100 : .infinity
    }

    /// Per-operation instruction counts of each sample, when every sample has one.
    static func perOperation(_ result: BenchmarkResult) -> [Double]? {
        var values: [Double] = []
        for sample in result.samples {
            guard let instructions = sample.instructions else { return nil }
            values.append(instructions / Double(max(sample.iterations, 1)))
        }
        return values.isEmpty ? nil : values
    }

    /// How far this result's own samples disagree, in percent (nil without instruction counts).
    public static func sampleSpreadPercent(_ result: BenchmarkResult) -> Double? {
        perOperation(result).map(spreadPercent)
    }

    /// `report` with a warning (rule `rule`) on every benchmark whose instruction counts moved by
    /// more than the tolerance within its samples or between `report` and `repeats` (other runs of
    /// the same binary).
    public static func marked(_ report: Report, repeats: [Report]) -> Report {
        var result = report
        let others = repeats.map { Dictionary($0.benchmarks.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }) }
        for index in result.benchmarks.indices {
            let benchmark = result.benchmarks[index]
            guard let own = benchmark.instructionsPerOperation else { continue }
            let counts = [own] + others.compactMap { $0[benchmark.id]?.instructionsPerOperation }
            let between = spreadPercent(counts)
            let within = sampleSpreadPercent(benchmark) ?? 0
            guard max(between, within) > tolerancePercent else { continue }
            let message =
                "instructions per operation moved by \(format(max(between, within)))% "
                + (between >= within ? "between \(counts.count) runs" : "between the samples of one run")
                + " under callgrind (more than \(format(tolerancePercent))%); not gated"
            result.benchmarks[index].warnings.append(Warning(rule: rule, message: message))
        }
        for index in result.benchmarks.indices {
            let benchmark = result.benchmarks[index]
            guard let own = benchmark.allocationsPerOperation else { continue }
            let counts = [own] + others.compactMap { $0[benchmark.id]?.allocationsPerOperation }
            // Below the comparator's minimum difference a count is residue, not a change.
            guard (counts.max() ?? 0) - (counts.min() ?? 0) >= Comparator.minimumCountDifference,
                spreadPercent(counts) > tolerancePercent
            else { continue }
            let message =
                "allocations per operation moved by \(format(spreadPercent(counts)))% between \(counts.count) runs "
                + "(more than \(format(tolerancePercent))%); not gated"
            result.benchmarks[index].warnings.append(Warning(rule: allocationsRule, message: message))
        }
        return result
    }

    /// The reason recorded by `marked`, if this result's allocation count is not deterministic.
    public static func unstableAllocationsReason(_ result: BenchmarkResult) -> String? {
        result.warnings.first { $0.rule == allocationsRule }?.message
    }

    /// The reason recorded by `marked`, if this result's count is not deterministic.
    public static func unstableReason(_ result: BenchmarkResult) -> String? {
        result.warnings.first { $0.rule == rule }?.message
    }

    static func format(_ value: Double) -> String { value.isFinite ? String(format: "%.2f", value) : "∞" }
}
