import Foundation
import Harness
import PerfReport

/// Tiny benchmarks whose behaviour is known, for testing the runner and the session.
enum TestSuites {
    /// Spins on the clock for `nanoseconds` per iteration: a body with a known minimum duration.
    static func spin(nanoseconds: UInt64, iterations: Int) {
        for _ in 0..<iterations {
            let end = MonotonicClock.now() + nanoseconds
            while MonotonicClock.now() < end {}
        }
    }

    final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var events: [String] = []
        func record(_ event: String) { lock.withLock { events.append(event) } }
        var all: [String] { lock.withLock { events } }
    }

    static func suite(recorder: Recorder = Recorder()) -> BenchmarkSuite {
        BenchmarkSuite(
            name: "Test",
            benchmarks: [
                Benchmark("Test/spin/10us", throughput: .items(1)) { n in spin(nanoseconds: 10_000, iterations: n) },
                Benchmark(
                    "Test/sized/sum",
                    parameters: [16, 256],
                    throughput: { n in n.map { Throughput.bytes($0 * 8) } },
                    setup: { n in
                        recorder.record("setup \(n ?? 0)")
                        return [Int](repeating: 1, count: n ?? 0)
                    },
                    body: { array, n in
                        for _ in 0..<n { blackHole(array.reduce(0, +)) }
                    },
                    teardown: { array in recorder.record("teardown \(array.count)") }
                ),
            ],
            analyze: { results in
                for index in results.indices {
                    results[index].claim = Claim(statement: "test", verdict: .inconclusive, evidence: "analysed")
                }
            })
    }

    static let fast = RunConfiguration(
        samples: 6, minimumSamples: 3, timeBudgetSeconds: 0.05, warmupSeconds: 0.002,
        minimumSampleNanoseconds: 200_000, rounds: 1)

    static func settings(_ configuration: RunConfiguration) -> RunSettings {
        RunSettings(
            filter: nil, quick: true, samples: configuration.samples,
            timeBudgetSeconds: configuration.timeBudgetSeconds, warmupSeconds: configuration.warmupSeconds,
            minSampleNanoseconds: configuration.minimumSampleNanoseconds, allocations: false, instructions: false,
            rounds: configuration.rounds)
    }
}
