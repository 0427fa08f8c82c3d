import PerfReport

/// Whether one side of a time comparison ran on a busier machine than the other, from its own samples
/// (not the machine's load average): CPU time against wall time (1.000 for a one-thread benchmark on a
/// quiet machine) and involuntary context switches (docs/regression-gate.md, "A busy machine is not a regression").
struct MachineContention: Equatable {
    /// Σ CPU time / Σ wall time of each side's samples.
    var baselineOnCPU: Double
    var currentOnCPU: Double
    /// Involuntary context switches per second of sampled wall time.
    var baselineSwitchesPerSecond: Double
    var currentSwitchesPerSecond: Double

    /// A side counts as busy when it got less than this share of what the other got: 10% of the
    /// wall time more off the CPU than the quiet side.
    static let busyShare = 0.9

    /// The side that waited for a CPU, when one did: nil when the sides were equally busy, when a
    /// side lacks CPU times, or when even the quieter side was mostly off the CPU (a benchmark whose
    /// threads sleep or wait for each other, whose CPU/wall ratio says nothing about neighbours).
    init?(baseline: BenchmarkResult, current: BenchmarkResult) {
        guard let old = Self.onCPU(baseline), let new = Self.onCPU(current) else { return nil }
        let quiet = max(old.share, new.share)
        guard quiet >= Self.busyShare, min(old.share, new.share) < Self.busyShare * quiet else { return nil }
        baselineOnCPU = old.share
        currentOnCPU = new.share
        baselineSwitchesPerSecond = old.switchesPerSecond
        currentSwitchesPerSecond = new.switchesPerSecond
    }

    var currentWasBusier: Bool { currentOnCPU < baselineOnCPU }

    /// Whether the busier side is also the slower one in wall time (medians in ns/op): only then
    /// can waiting for a CPU have made the difference. A side that computed on more threads is
    /// "less busy" by this measure, and must not turn an unchanged wall time into a CPU-time verdict.
    func couldExplain(baselineWallMedian: Double, currentWallMedian: Double) -> Bool {
        currentWasBusier ? currentWallMedian > baselineWallMedian : baselineWallMedian > currentWallMedian
    }

    /// Why CPU time was compared, with the evidence (``ComparisonWording`` words it).
    var substitution: ComparisonReason.Substitution {
        .busyMachine(
            onCPU: ComparisonReason.PerSide(baseline: baselineOnCPU, current: currentOnCPU),
            switchesPerSecond: ComparisonReason.PerSide(
                baseline: baselineSwitchesPerSecond, current: currentSwitchesPerSecond))
    }

    static func onCPU(_ result: BenchmarkResult) -> (share: Double, switchesPerSecond: Double)? {
        var wall = 0.0
        var cpu = 0.0
        var switches = 0
        for sample in result.samples {
            guard let sampleCPU = sample.cpuNanoseconds else { return nil }
            wall += sample.wallNanoseconds
            cpu += sampleCPU
            switches += sample.involuntaryContextSwitches ?? 0
        }
        guard wall > 0 else { return nil }
        return (cpu / wall, Double(switches) / (wall / 1e9))
    }
}
