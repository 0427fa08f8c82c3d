import Foundation
import Harness
import PerfReport

/// Requested asyncAfter delay.
let asyncAfterDelayMicroseconds = 1000.0

/// Lateness of each asyncAfter firing (actual − requested delay), in µs.
final class LatenessRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Double] = []

    func record(_ microseconds: Double) { lock.withLock { values.append(microseconds) } }

    var counters: [String: Double] {
        let sorted = lock.withLock { values.sorted() }
        guard !sorted.isEmpty else { return [:] }
        func quantile(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int(q * Double(sorted.count)))] }
        return [
            "requestedDelayMicroseconds": asyncAfterDelayMicroseconds, "medianLatenessMicroseconds": quantile(0.5),
            "p99LatenessMicroseconds": quantile(0.99), "maxLatenessMicroseconds": sorted.last!,
            "firings": Double(sorted.count),
        ]
    }
}

/// The main queue, checked to be drained: something runs `dispatchMain()` (as `perfkit run` does)
/// or a run loop on the main thread. Without that a hop to it would never come back.
struct DrainedMainQueue {
    struct NotDrained: Error, CustomStringConvertible {
        var description: String {
            "the main queue is not drained (nothing runs dispatchMain() or a main run loop); `perfkit run` drains it"
        }
    }

    let back = DispatchSemaphore(value: 0)

    init(timeout: DispatchTimeInterval = .seconds(2)) throws {
        let ran = DispatchSemaphore(value: 0)
        DispatchQueue.main.async { ran.signal() }
        guard ran.wait(timeout: .now() + timeout) == .success else { throw NotDrained() }
    }
}

/// How much more a hop to the main queue must cost than one to a private serial queue before the
/// claim that it costs no more fails: a 5% line put the same code on either side of it from run to
/// run (docs/dispatchbench-findings.md#the-constants-and-the-runs-that-set-them). 25% is also the hops' declared regression threshold.
let hopMinimumEffect = 0.25

let hopCases: [ClaimedBenchmark] = [
    ClaimedBenchmark(
        "DispatchBench/gcd/hop-serial-round-trip",
        "An async hop to a serial queue and back (a semaphore wake-up) costs microseconds, not nanoseconds: over 1 µs.",
        thresholdPercent: 25, scheduling: .gcdComparison,
        make: { _ in (DispatchQueue(label: "perfkit.dispatchbench.hop"), DispatchSemaphore(value: 0)) },
        body: { subject, n in
            let (queue, back) = subject
            for _ in 0..<n {
                queue.async { back.signal() }
                back.wait()
            }
        },
        judge: { result, _ in
            let ci = result.wallTime.medianConfidenceInterval
            let evidence = "median \(Describe.median(result)) per round trip"
            if ci.lower > 1000 { return (.held, evidence + ": the whole CI is above 1 µs") }
            if ci.upper < 1000 { return (.didNotHold, evidence + ": the whole CI is below 1 µs") }
            return (.inconclusive, evidence + ": the CI straddles 1 µs")
        }),
    ClaimedBenchmark(
        "DispatchBench/gcd/hop-main-queue-round-trip",
        "The main queue is just a serial queue: with dispatchMain() running, a hop to it and back costs no more than one to a private serial queue (within 25%).",
        thresholdPercent: 25, scheduling: .gcdComparison,
        make: { _ in try DrainedMainQueue() },
        body: { main, n in
            for _ in 0..<n {
                DispatchQueue.main.async { main.back.signal() }
                main.back.wait()
            }
        },
        judge: { result, all in
            guard let serial = all.first(where: { $0.group == result.group && $0.name == "hop-serial-round-trip" })
            else {
                return (
                    .inconclusive,
                    "median \(Describe.median(result)); hop-serial-round-trip was not run, so no comparison"
                )
            }
            let difference = TimingDifference(result, comparedTo: serial, minimumEffect: hopMinimumEffect)
            let evidence = difference.sentence(result, vs: "hop-serial-round-trip", serial)
            return (difference.direction == .higher ? .didNotHold : .held, evidence)
        }, comparedWith: ["hop-serial-round-trip"]),
    ClaimedBenchmark(
        "DispatchBench/gcd/hop-async-after-1ms",
        "asyncAfter fires close to the requested 1 ms: median lateness under 10% (100 µs).",
        thresholdPercent: 25,
        make: { _ in
            (DispatchQueue(label: "perfkit.dispatchbench.timer"), DispatchSemaphore(value: 0), LatenessRecorder())
        },
        body: { subject, n in
            let (queue, fired, recorder) = subject
            for _ in 0..<n {
                let start = DispatchTime.now().uptimeNanoseconds
                queue.asyncAfter(deadline: .now() + .microseconds(Int(asyncAfterDelayMicroseconds))) {
                    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1000
                    recorder.record(elapsed - asyncAfterDelayMicroseconds)
                    fired.signal()
                }
                fired.wait()
            }
        },
        counters: { $0.2.counters },
        judge: { result, _ in
            guard let median = result.counters["medianLatenessMicroseconds"] else {
                return (.inconclusive, "no firings recorded")
            }
            let p99 = result.counters["p99LatenessMicroseconds"] ?? .nan
            let evidence = String(
                format: "requested %.0f µs; median lateness %.1f µs, p99 %.1f µs over %.0f firings",
                asyncAfterDelayMicroseconds,
                median, p99, result.counters["firings"] ?? 0)
            return (median < asyncAfterDelayMicroseconds / 10 ? .held : .didNotHold, evidence)
        }),
]
