import Foundation
import Harness
import PerfReport

/// Busy items per QoS class per round, and the CPU time each needs.
let qosItemsPerClass = 2 * processorCount
let qosItemMicroseconds = 1000.0

/// Counts, over all rounds, where the user-initiated items finished in the completion order: per item
/// (how strong the preference is) and per round (which class was ahead in each round, the unit the
/// verdict is tested on: items of one round are not independent of each other).
final class QoSOrder: @unchecked Sendable {
    private let lock = NSLock()
    private var order: [DispatchQoS.QoSClass] = []
    private(set) var rounds = 0
    private var userInitiatedInFirstHalf = 0
    private var userInitiatedItems = 0
    private var roundsUserInitiatedAhead = 0
    private var roundsBackgroundAhead = 0
    /// The nice values the items' worker threads ran at, per class: libdispatch expresses QoS on
    /// Linux as the worker thread's nice value, which is what the kernel's scheduler weighs.
    private var nice: [DispatchQoS.QoSClass: ClosedRange<Int>] = [:]

    func finished(_ qos: DispatchQoS.QoSClass, nice threadNice: Int? = nil) {
        lock.withLock {
            order.append(qos)
            if let threadNice {
                let seen = nice[qos]
                nice[qos] =
                    min(seen?.lowerBound ?? threadNice, threadNice)...max(seen?.upperBound ?? threadNice, threadNice)
            }
        }
    }

    func endRound() {
        lock.withLock {
            let half = order.count / 2
            var items = 0
            var inFirstHalf = 0
            for (index, qos) in order.enumerated() where qos == .userInitiated {
                items += 1
                if index < half { inFirstHalf += 1 }
            }
            userInitiatedItems += items
            userInitiatedInFirstHalf += inFirstHalf
            // Ahead: more than half of this round's user-initiated items in the first half.
            if 2 * inFirstHalf > items {
                roundsUserInitiatedAhead += 1
            } else if 2 * inFirstHalf < items {
                roundsBackgroundAhead += 1
            }
            order.removeAll(keepingCapacity: true)
            rounds += 1
        }
    }

    var counters: [String: Double] {
        lock.withLock {
            var counters = [
                "rounds": Double(rounds),
                "userInitiatedItems": Double(userInitiatedItems),
                "userInitiatedInFirstHalf": userInitiatedItems > 0
                    ? Double(userInitiatedInFirstHalf) / Double(userInitiatedItems) : .nan,
                "roundsUserInitiatedAhead": Double(roundsUserInitiatedAhead),
                "roundsBackgroundAhead": Double(roundsBackgroundAhead),
            ]
            for (qos, name) in [(DispatchQoS.QoSClass.userInitiated, "userInitiated"), (.background, "background")] {
                guard let range = nice[qos] else { continue }
                counters["\(name)NiceMin"] = Double(range.lowerBound)
                counters["\(name)NiceMax"] = Double(range.upperBound)
            }
            return counters
        }
    }
}

/// The worker threads' nice values per class, as the evidence shows them: "worker threads at nice -2
/// (.userInitiated) and 10 (.background)".
func niceEvidence(_ counters: [String: Double]) -> String {
    func range(_ name: String) -> String {
        guard let low = counters["\(name)NiceMin"], let high = counters["\(name)NiceMax"] else { return "unknown" }
        return low == high ? "\(Int(low))" : "\(Int(low)) to \(Int(high))"
    }
    return "worker threads at nice \(range("userInitiated")) (.userInitiated) and \(range("background")) (.background)"
}

/// P(X ≥ successes) for X ~ Binomial(trials, 1/2): the one-sided sign test.
func signTestPValue(successes: Int, trials: Int) -> Double {
    guard trials > 0, successes > 0, successes <= trials else { return 1 }
    return Binomial.upperTail(atLeast: successes, trials: trials, probability: 0.5)
}

let qosCases: [ClaimedBenchmark] = [
    ClaimedBenchmark(
        "DispatchBench/gcd/qos-user-initiated-vs-background",
        "Under contention, .userInitiated work finishes ahead of .background work submitted just before it (in significantly more rounds than not, most of it is in the first half of completions).",
        thresholdPercent: 25, make: { _ in QoSOrder() },
        body: { recorder, n in
            for _ in 0..<n {
                let group = DispatchGroup()
                for qos in [DispatchQoS.QoSClass.background, .userInitiated] {
                    for _ in 0..<qosItemsPerClass {
                        DispatchQueue.global(qos: qos).async(group: group) {
                            // CPU time, not wall time: an item spinning on the clock finishes on time
                            // even when preempted, so the order would not show how the cores were shared
                            // (docs/dispatchbench-findings.md#why-the-10th-percentile-and-what-two-threads-needed).
                            spinOnCPU(microseconds: qosItemMicroseconds)
                            recorder.finished(qos, nice: currentThreadNice())
                        }
                    }
                }
                group.wait()
                recorder.endRound()
            }
        },
        counters: { $0.counters },
        judge: { result, _ in
            guard let fraction = result.counters["userInitiatedInFirstHalf"], fraction.isFinite,
                let ahead = result.counters["roundsUserInitiatedAhead"].map(Int.init),
                let behind = result.counters["roundsBackgroundAhead"].map(Int.init)
            else {
                return (.inconclusive, "no rounds recorded")
            }
            let rounds = Int(result.counters["rounds"] ?? 0)
            let p = signTestPValue(successes: ahead, trials: ahead + behind)
            let evidence =
                String(
                    format:
                        "%.0f%% of .userInitiated items finished in the first half (50%% = no preference; first come, first served would give less); .userInitiated ahead in %d of %d rounds, .background in %d, tied in %d (rounds of %d + %d items of %.0f µs CPU time on %d cores); sign test p = %.2g",
                    fraction * 100, ahead, rounds, behind, rounds - ahead - behind, qosItemsPerClass, qosItemsPerClass,
                    qosItemMicroseconds, processorCount, p) + "; " + niceEvidence(result.counters)
            // The strength of the preference is in the evidence; the verdict asks only whether there is
            // one: its size moves too much between runs for a line (docs/dispatchbench-findings.md#the-constants-and-the-runs-that-set-them).
            // Not preferring .userInitiated significantly is no proof that it is not preferred: the
            // claim fails only when .background finished ahead in significantly more rounds. A run
            // whose rounds showed no significant order either way says "inconclusive" (a --quick run's
            // few rounds flipped between "held" and "did not hold" when this said "did not hold").
            guard ahead + behind > 0 else { return (.inconclusive, evidence + ": every round tied") }
            let alpha = 1 - DecisionLevel.current
            if p < alpha { return (.held, evidence) }
            if signTestPValue(successes: behind, trials: ahead + behind) < alpha {
                return (.didNotHold, evidence + ": .background finished ahead in significantly more rounds")
            }
            return (.inconclusive, evidence + ": no significant preference either way")
        })
]
