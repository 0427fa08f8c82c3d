import Foundation
import Harness
import PerfReport

/// Blocking work items per operation, and how long each blocks.
let blockingItems = 16
let blockingMicroseconds: UInt32 = 1000
/// Width of the limited OperationQueue.
let operationQueueWidth = 2

/// What a thread-explosion instance watches: threads in the process and work items at once.
final class ExplosionWatch: @unchecked Sendable {
    let sampler = ThreadCountSampler()
    let gauge = ConcurrencyGauge()
    let operationQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = operationQueueWidth
        return queue
    }()

    func blockingItem() {
        gauge.enter()
        usleep(blockingMicroseconds)
        gauge.leave()
    }

    var counters: [String: Double] {
        sampler.stop()
        return [
            "peakConcurrentItems": Double(gauge.peak),
            "medianBatchPeakConcurrentItems": Double(gauge.medianBatchPeak ?? 0),
            "peakProcessThreads": Double(sampler.peak),
            "threadsBefore": Double(sampler.baseline), "cores": Double(processorCount),
        ]
    }
}

private func explosionCase(
    _ name: String, _ statement: String, judge: @escaping ClaimedBenchmark.Judge,
    body: @escaping (ExplosionWatch) -> Void
) -> ClaimedBenchmark {
    ClaimedBenchmark(
        "DispatchBench/gcd/\(name)", statement, thresholdPercent: 25, make: { _ in ExplosionWatch() },
        body: { watch, n in
            for _ in 0..<n {
                body(watch)
                watch.gauge.endBatch()
            }
        }, counters: { $0.counters },
        teardown: { $0.sampler.stop() }, judge: judge)
}

/// "held" when the peak number of blocking items running at once satisfies `predicate`.
private func peakConcurrency(
    _ expectation: String, _ predicate: @escaping @Sendable (Int) -> Bool
) -> ClaimedBenchmark.Judge {
    { result, _ in
        guard let peak = result.counters["peakConcurrentItems"] else { return (.inconclusive, "no counters") }
        let threads = result.counters["peakProcessThreads"] ?? 0
        let before = result.counters["threadsBefore"] ?? 0
        let evidence =
            "at most \(formatCount(peak)) of \(blockingItems) blocking items ran at once (expected \(expectation)); process threads peaked at \(formatCount(threads)) (\(formatCount(before)) before); \(processorCount) cores; median \(Describe.median(result)) per batch"
        return (predicate(Int(peak)) ? .held : .didNotHold, evidence)
    }
}

/// "held" when the median batch ran at least `minimum` blocking items at once.
private func typicalBatchConcurrency(atLeast minimum: Int) -> ClaimedBenchmark.Judge {
    { result, _ in
        guard let typical = result.counters["medianBatchPeakConcurrentItems"], typical > 0 else {
            return (.inconclusive, "no batches recorded")
        }
        let peak = result.counters["peakConcurrentItems"] ?? 0
        let threads = result.counters["peakProcessThreads"] ?? 0
        let before = result.counters["threadsBefore"] ?? 0
        let evidence =
            "in the median batch \(formatCount(typical)) of \(blockingItems) blocking items ran at once, at most \(formatCount(peak)) in any batch (expected ≥ \(minimum) in a typical batch); process threads peaked at \(formatCount(threads)) (\(formatCount(before)) before); \(processorCount) cores; median \(Describe.median(result)) per batch. libdispatch on Linux adds at most one worker a second while its workers block"
        return (Int(typical) >= minimum ? .held : .didNotHold, evidence)
    }
}

let threadExplosionCases: [ClaimedBenchmark] = [
    explosionCase(
        "explosion-concurrent-perform",
        "concurrentPerform runs blocking work on about one thread per core: no thread explosion.",
        judge: peakConcurrency("≤ cores + 1") { $0 <= processorCount + 1 }
    ) { watch in
        DispatchQueue.concurrentPerform(iterations: blockingItems) { _ in watch.blockingItem() }
    },
    explosionCase(
        "explosion-operation-queue",
        "An OperationQueue with maxConcurrentOperationCount = \(operationQueueWidth) never runs more than \(operationQueueWidth) blocking items at once.",
        judge: peakConcurrency("≤ \(operationQueueWidth)") { $0 <= operationQueueWidth }
    ) { watch in
        for _ in 0..<blockingItems { watch.operationQueue.addOperation { watch.blockingItem() } }
        watch.operationQueue.waitUntilAllOperationsAreFinished()
    },
    explosionCase(
        "explosion-global-queue",
        // Judged on a typical batch, not the highest peak: on Linux libdispatch's pool grows only from
        // a monitor that runs once a second and adds one worker when fewer workers than cores are
        // runnable (up to 2 × cores), so the highest peak depends on how many ticks fell inside the
        // measurement and flipped from run to run.
        "Blocking work submitted to a global concurrent queue makes GCD start threads for it at once (thread explosion: in a typical batch at least twice as many blocking items run at once as there are cores).",
        judge: typicalBatchConcurrency(atLeast: 2 * processorCount)
    ) { watch in
        let group = DispatchGroup()
        for _ in 0..<blockingItems { DispatchQueue.global().async(group: group) { watch.blockingItem() } }
        group.wait()
    },
]
