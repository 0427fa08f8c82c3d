import Foundation
import Harness

/// Work items per fan-out, and the work in each (small, so the waiting mechanism dominates).
let fanOutWidth = 8

/// How much more one way of waiting for a fan-out must cost than `DispatchGroup.wait` before a claim
/// that it costs more counts. The claims are about a cost a developer would notice (one more hop is
/// about 3 µs, 15% of a 20 µs fan-out), and the ratios between these ways of waiting moved by up to
/// 12% from one process to the next with the state of libdispatch's worker pool (2026-11-22, 2 cores:
/// semaphore vs wait 0.89–1.09×, notify vs wait 0.88–1.00× over 22 runs), so a 5% line put the same
/// code on either side of it in consecutive runs.
let fanOutMinimumEffect = 0.15

@inline(never)
func fanOutItem(_ seed: Int) -> Int {
    var sum = seed
    for i in 0..<200 { sum = sum &* 31 &+ i }
    return sum
}

/// One operation = fan out `fanOutWidth` items and wait for all of them.
private func fanOutCase(
    _ name: String, _ statement: String, judge: @escaping ClaimedBenchmark.Judge,
    body: @escaping @Sendable (_ iterations: Int) -> Void
) -> ClaimedBenchmark {
    ClaimedBenchmark(
        "DispatchBench/gcd/\(name)", statement, thresholdPercent: 15, scheduling: .gcdComparison,
        make: { _ in () },
        body: { _, n in body(n) }, judge: judge)
}

let fanOutCases: [ClaimedBenchmark] = [
    fanOutCase(
        "fanout-group-wait", "Fanning out with async and DispatchGroup.wait is slower than concurrentPerform.",
        judge: compared(to: "fanout-concurrent-perform", faster: false)
    ) { n in
        let queue = DispatchQueue.global()
        for _ in 0..<n {
            let group = DispatchGroup()
            for item in 0..<fanOutWidth { queue.async(group: group) { blackHole(fanOutItem(item)) } }
            group.wait()
        }
    },
    fanOutCase(
        "fanout-group-notify",
        "Waiting with DispatchGroup.notify costs more than DispatchGroup.wait (the notification is one more hop).",
        judge: compared(to: "fanout-group-wait", faster: false, minimumEffect: fanOutMinimumEffect)
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
        "fanout-semaphore",
        "Counting completions with a DispatchSemaphore (one wait per item) is slower than one DispatchGroup.wait.",
        judge: compared(to: "fanout-group-wait", faster: false, minimumEffect: fanOutMinimumEffect)
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
        "fanout-concurrent-perform",
        "DispatchQueue.concurrentPerform is a faster fan-out-and-wait than async + DispatchGroup.wait (the caller's thread works too).",
        judge: compared(to: "fanout-group-wait", faster: true)
    ) { n in
        for _ in 0..<n {
            DispatchQueue.concurrentPerform(iterations: fanOutWidth) { item in blackHole(fanOutItem(item)) }
        }
    },
    fanOutCase(
        "fanout-task-group", "A task group is slower than concurrentPerform for a fan-out of tiny work items.",
        judge: compared(to: "fanout-concurrent-perform", faster: false)
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
        judge: compared(to: "fanout-concurrent-perform", faster: false)
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
