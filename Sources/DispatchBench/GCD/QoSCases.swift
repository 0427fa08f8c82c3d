import Foundation
import Harness
import PerfReport

/// Busy items per QoS class per round, and how long each holds a core.
let qosItemsPerClass = 2 * processorCount
let qosItemMicroseconds = 1000.0

/// Counts, over all rounds, where the user-initiated items finished in the completion order.
final class QoSOrder: @unchecked Sendable {
    private let lock = NSLock()
    private var order: [DispatchQoS.QoSClass] = []
    private(set) var rounds = 0
    private var userInitiatedInFirstHalf = 0
    private var userInitiatedItems = 0

    func finished(_ qos: DispatchQoS.QoSClass) { lock.withLock { order.append(qos) } }

    func endRound() {
        lock.withLock {
            let half = order.count / 2
            for (index, qos) in order.enumerated() where qos == .userInitiated {
                userInitiatedItems += 1
                if index < half { userInitiatedInFirstHalf += 1 }
            }
            order.removeAll(keepingCapacity: true)
            rounds += 1
        }
    }

    var counters: [String: Double] {
        lock.withLock {
            [
                "rounds": Double(rounds),
                "userInitiatedItems": Double(userInitiatedItems),
                "userInitiatedInFirstHalf": userInitiatedItems > 0
                    ? Double(userInitiatedInFirstHalf) / Double(userInitiatedItems) : .nan,
            ]
        }
    }
}

let qosCases: [ClaimedBenchmark] = [
    ClaimedBenchmark(
        "DispatchBench/gcd/qos-user-initiated-vs-background",
        "Under contention, .userInitiated work finishes ahead of .background work submitted just before it (significantly more, and at least 60%, of it in the first half of completions).",
        thresholdPercent: 25, make: { _ in QoSOrder() },
        body: { recorder, n in
            for _ in 0..<n {
                let group = DispatchGroup()
                for qos in [DispatchQoS.QoSClass.background, .userInitiated] {
                    for _ in 0..<qosItemsPerClass {
                        DispatchQueue.global(qos: qos).async(group: group) {
                            spin(microseconds: qosItemMicroseconds)
                            recorder.finished(qos)
                        }
                    }
                }
                group.wait()
                recorder.endRound()
            }
        },
        counters: { $0.counters },
        judge: { result, _ in
            guard let fraction = result.counters["userInitiatedInFirstHalf"], fraction.isFinite else {
                return (.inconclusive, "no rounds recorded")
            }
            let evidence = String(
                format:
                    "%.0f%% of .userInitiated items finished in the first half (50%% = no preference) over %.0f rounds of %d + %d items of %.0f µs on %d cores",
                fraction * 100, result.counters["rounds"] ?? 0, qosItemsPerClass, qosItemsPerClass, qosItemMicroseconds,
                processorCount)
            // One-sided binomial test (normal approximation) against "no preference" (50%).
            let items = result.counters["userInitiatedItems"] ?? 0
            let z = items > 0 ? (fraction - 0.5) / (0.5 / items.squareRoot()) : 0
            let p = 0.5 * erfc(z / 2.0.squareRoot())
            let tested = evidence + String(format: "; binomial p = %.2g", p)
            guard p < MedianDifference.alpha else { return (.didNotHold, tested + ": no significant preference") }
            // Significant but small (under 60%): a slight lean, not "finishes ahead".
            return fraction >= 0.6 ? (.held, tested) : (.inconclusive, tested + ": a significant but slight preference")
        })
]
