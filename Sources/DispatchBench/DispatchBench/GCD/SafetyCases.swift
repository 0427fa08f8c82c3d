import Foundation
import Harness
import PerfReport

/// Blocks per operation in the safety benchmarks.
let safetyBlocks = 8

/// Records completion order of blocks numbered in submission order.
final class CompletionOrder: @unchecked Sendable {
    private let lock = NSLock()
    private var current: [Int] = []
    private var rounds = 0
    private var outOfOrderRounds = 0

    func finished(_ index: Int) { lock.withLock { current.append(index) } }

    func endRound() {
        lock.withLock {
            if current != current.sorted() { outOfOrderRounds += 1 }
            current.removeAll(keepingCapacity: true)
            rounds += 1
        }
    }

    var counters: [String: Double] {
        lock.withLock { ["rounds": Double(rounds), "outOfOrderRounds": Double(outOfOrderRounds)] }
    }
}

/// Submits `safetyBlocks` blocks to `queue`; each records how many blocks run at once and its
/// completion; the first blocks work longest, so a queue that runs them concurrently finishes
/// them out of order.
func runSafetyRound(on queue: DispatchQueue, gauge: ConcurrencyGauge, order: CompletionOrder) {
    let group = DispatchGroup()
    for index in 0..<safetyBlocks {
        queue.async(group: group) {
            gauge.enter()
            spin(microseconds: Double(safetyBlocks - index) * 20)
            gauge.leave()
            order.finished(index)
        }
    }
    group.wait()
    order.endRound()
}

/// Two blocks on `queue`: the first waits (up to a second) until the second has run. A concurrent
/// queue runs the second while the first is still running, so it finishes first; racing spins
/// would be at the mercy of how many pool threads a busy process gets.
func runHandshakeRound(on queue: DispatchQueue, gauge: ConcurrencyGauge, order: CompletionOrder) {
    let secondRan = DispatchSemaphore(value: 0)
    let group = DispatchGroup()
    queue.async(group: group) {
        gauge.enter()
        _ = secondRan.wait(timeout: .now() + 1)
        gauge.leave()
        order.finished(0)
    }
    queue.async(group: group) {
        gauge.enter()
        gauge.leave()
        order.finished(1)
        secondRan.signal()
    }
    group.wait()
    order.endRound()
}

let safetyCases: [ClaimedBenchmark] = [
    ClaimedBenchmark(
        "DispatchBench/gcd/safety-serial-exclusive",
        "A serial queue never runs two blocks at once, and finishes them in submission order.",
        thresholdPercent: 25,
        make: { _ in
            (DispatchQueue(label: "perfkit.dispatchbench.serial-safety"), ConcurrencyGauge(), CompletionOrder())
        },
        body: { subject, n in for _ in 0..<n { runSafetyRound(on: subject.0, gauge: subject.1, order: subject.2) } },
        counters: { $0.2.counters.merging(["peakConcurrentBlocks": Double($0.1.peak)]) { a, _ in a } },
        judge: { result, _ in
            let peak = result.counters["peakConcurrentBlocks"] ?? -1
            let outOfOrder = result.counters["outOfOrderRounds"] ?? -1
            let evidence =
                "at most \(formatCount(peak)) block(s) ran at once; \(formatCount(outOfOrder)) of \(formatCount(result.counters["rounds"] ?? 0)) rounds finished out of order"
            return (peak == 1 && outOfOrder == 0 ? .held : .didNotHold, evidence)
        }),
    ClaimedBenchmark(
        "DispatchBench/gcd/safety-concurrent-out-of-order",
        "A concurrent queue runs blocks at the same time and can finish them out of submission order.",
        thresholdPercent: 25,
        make: { _ in
            (
                DispatchQueue(label: "perfkit.dispatchbench.concurrent-safety", attributes: .concurrent),
                ConcurrencyGauge(), CompletionOrder()
            )
        },
        body: { subject, n in for _ in 0..<n { runHandshakeRound(on: subject.0, gauge: subject.1, order: subject.2) } },
        counters: { $0.2.counters.merging(["peakConcurrentBlocks": Double($0.1.peak)]) { a, _ in a } },
        judge: { result, _ in
            let peak = result.counters["peakConcurrentBlocks"] ?? 0
            let outOfOrder = result.counters["outOfOrderRounds"] ?? 0
            let evidence =
                "up to \(formatCount(peak)) blocks ran at once; \(formatCount(outOfOrder)) of \(formatCount(result.counters["rounds"] ?? 0)) rounds finished out of order"
            return (peak > 1 && outOfOrder > 0 ? .held : .didNotHold, evidence)
        }),
]
