import Harness
import PerfReport

/// Whether other work wanted the CPUs a claim's threads needed while it was measured: a claim about
/// threads contending (two threads on one lock) times the code only when each thread has a CPU, and on
/// a busy machine its verdict follows the neighbours instead (`NSLock` against `pthread_mutex` at 99%
/// reads × 2 threads went from held to did not hold with other work running). Such a claim is
/// inconclusive, with the evidence, when the other runnable tasks around its samples (or those of the
/// case it is compared with) exceeded the CPUs it leaves free by more than `excessRunnable` on average
/// (docs/dispatchbench-findings.md#claims-on-a-busy-machine). Plain data in, verdict out.
struct BusyMachine: Equatable, Sendable {
    /// Busy when, on average over the edges of a side's samples, more than this many other tasks were
    /// runnable beyond the CPUs the claim leaves free: other work wanted one of the claim's CPUs most
    /// of the time. Measured here: nothing else running 0.05–0.57, two CPU-bound neighbours 2.0–2.5,
    /// one about 1 (docs/dispatchbench-findings.md#claims-on-a-busy-machine).
    static let excessRunnable = 0.75

    /// One measured case: its samples' mean `Sample.otherRunnableTasks` (nil when a sample lacks it:
    /// a report from before it was recorded, or not Linux).
    struct Side: Equatable, Sendable {
        var label: String
        var otherRunnable: Double?
        var samples: Int

        init(label: String, otherRunnable: Double?, samples: Int) {
            self.label = label
            self.otherRunnable = otherRunnable
            self.samples = samples
        }

        init(_ result: BenchmarkResult, label: String) {
            let counts = result.samples.compactMap(\.otherRunnableTasks)
            let complete = !counts.isEmpty && counts.count == result.samples.count
            self.init(
                label: label, otherRunnable: complete ? counts.reduce(0, +) / Double(counts.count) : nil,
                samples: result.samples.count)
        }
    }

    var cpusNeeded: Int
    var processors: Int
    /// The claim's own case first, then those its judge compared it with.
    var sides: [Side]

    /// Other runnable tasks a side may average before the claim's threads count as waiting: the CPUs
    /// the claim leaves free, plus `excessRunnable`.
    var allowance: Double { Double(max(0, processors - cpusNeeded)) + Self.excessRunnable }

    /// Whether the rule applies and a side exceeded the allowance; false for a claim on one thread
    /// (its time is one thread's work, which the host's slow spells only lengthen: the low quantile
    /// and the pairing handle it) and when the evidence is missing.
    var wasBusy: Bool {
        cpusNeeded >= 2 && sides.contains { ($0.otherRunnable ?? 0) > allowance }
    }

    /// The judge's verdict, or inconclusive with the evidence when the machine was busy.
    func judge(_ judged: (Claim.Verdict, String)) -> (Claim.Verdict, String) {
        guard wasBusy else { return judged }
        return (
            .inconclusive,
            Describe.busyMachine(self) + "; the times alone said \(Describe.verdict(judged.0)): \(judged.1)"
        )
    }
}
