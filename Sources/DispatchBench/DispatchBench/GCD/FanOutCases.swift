import Foundation
import Harness

/// Work items per fan-out, and the work in each (small, so the waiting mechanism dominates).
let fanOutWidth = 8

/// Fan-outs take 200 samples in a full run, twice the other GCD comparisons: their wait also depends
/// on the state of libdispatch's worker pool (docs/dispatchbench-findings.md#the-constants-and-the-runs-that-set-them).
/// Quick runs stop at 20 samples (`RunConfiguration.maximumFreshVisits`).
let fanOutScheduling = Benchmark.Scheduling.everySampleAFreshVisit(sampleFactor: 8)

/// How much faster or slower than `DispatchGroup.wait` the other ways of waiting must be to count:
/// their ratio moves between processes by more than its interval within one, across a 5% line
/// (docs/dispatchbench-findings.md#verdict-stability); under a tenth of a 20 µs fan-out decides nothing.
let fanOutWaitMinimumEffect = 0.10

@inline(never)
func fanOutItem(_ seed: Int) -> Int {
    var sum = seed
    for i in 0..<200 { sum = sum &* 31 &+ i }
    return sum
}

/// One operation = fan out `fanOutWidth` items and wait for all of them.
private func fanOutCase(
    _ name: String, _ statement: String, comparison: TimingComparison,
    body: @escaping @Sendable (_ iterations: Int) -> Void
) -> ClaimedBenchmark {
    ClaimedBenchmark(
        "DispatchBench/gcd/\(name)", statement, thresholdPercent: 15, scheduling: fanOutScheduling,
        make: { _ in () },
        body: { _, n in body(n) }, comparison: comparison)
}

/// Each next to, or a case away from, the case its claim compares it with: they are measured in this
/// order in every round, and neighbours' samples pair up (`TimingDifference`).
let fanOutCases: [ClaimedBenchmark] = [
    fanOutCase(
        "fanout-semaphore",
        "Counting completions with a DispatchSemaphore (one wait per item) is slower than one DispatchGroup.wait.",
        comparison: compared(to: "fanout-group-wait", faster: false, minimumEffect: fanOutWaitMinimumEffect)
    ) { n in
        let queue = DispatchQueue.global()
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<n {
            for item in 0..<fanOutWidth {
                queue.async {
                    blackHole(fanOutItem(item))
                    done.signal()
                }
            }
            for _ in 0..<fanOutWidth { done.wait() }
        }
    },
    fanOutCase(
        "fanout-group-notify",
        "Waiting with DispatchGroup.notify costs more than DispatchGroup.wait (the notification is one more hop).",
        comparison: compared(to: "fanout-group-wait", faster: false, minimumEffect: fanOutWaitMinimumEffect)
    ) { n in
        let queue = DispatchQueue.global()
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<n {
            let group = DispatchGroup()
            for item in 0..<fanOutWidth { queue.async(group: group) { blackHole(fanOutItem(item)) } }
            group.notify(queue: queue) { done.signal() }
            done.wait()
        }
    },
    fanOutCase(
        "fanout-group-wait", "Fanning out with async and DispatchGroup.wait is slower than concurrentPerform.",
        comparison: compared(to: "fanout-concurrent-perform", faster: false)
    ) { n in
        let queue = DispatchQueue.global()
        for _ in 0..<n {
            let group = DispatchGroup()
            for item in 0..<fanOutWidth { queue.async(group: group) { blackHole(fanOutItem(item)) } }
            group.wait()
        }
    },
    fanOutCase(
        "fanout-concurrent-perform",
        "DispatchQueue.concurrentPerform is a faster fan-out-and-wait than async + DispatchGroup.wait (the caller's thread works too).",
        comparison: compared(to: "fanout-group-wait", faster: true)
    ) { n in
        for _ in 0..<n {
            DispatchQueue.concurrentPerform(iterations: fanOutWidth) { item in blackHole(fanOutItem(item)) }
        }
    },
    fanOutCase(
        "fanout-task-group", "A task group is slower than concurrentPerform for a fan-out of tiny work items.",
        comparison: compared(to: "fanout-concurrent-perform", faster: false)
    ) { n in
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            for _ in 0..<n {
                await withTaskGroup(of: Int.self) { group in
                    for item in 0..<fanOutWidth { group.addTask { fanOutItem(item) } }
                    for await value in group { blackHole(value) }
                }
            }
            done.signal()
        }
        done.wait()
    },
    fanOutCase(
        "fanout-async-let", "`async let` for a fan-out of tiny work items is slower than concurrentPerform.",
        comparison: compared(to: "fanout-concurrent-perform", faster: false)
    ) { n in
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            for _ in 0..<n {
                async let a = fanOutItem(0)
                async let b = fanOutItem(1)
                async let c = fanOutItem(2)
                async let d = fanOutItem(3)
                async let e = fanOutItem(4)
                async let f = fanOutItem(5)
                async let g = fanOutItem(6)
                async let h = fanOutItem(7)
                blackHole(await [a, b, c, d, e, f, g, h])
            }
            done.signal()
        }
        done.wait()
    },
]
