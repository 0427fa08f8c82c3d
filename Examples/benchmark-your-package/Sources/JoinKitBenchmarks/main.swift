import Harness
import JoinKit
import PerfkitMain

/// Words "0", "1", … for a parameter value (untimed setup).
@Sendable func words(_ count: Int?) -> [String] { (0..<(count ?? 1)).map(String.init) }

let joinKit = BenchmarkSuite(
    name: "JoinKit",
    benchmarks: [
        Benchmark(
            "JoinKit/join/one-pass", parameters: [16, 256], throughput: { n in .items(n ?? 1) }, setup: words,
            body: { words, iterations in for _ in 0..<iterations { blackHole(join(words)) } }),
        // Quadratic in the words: a wider threshold, declared next to the benchmark.
        Benchmark(
            "JoinKit/join/naive", parameters: [16, 256], throughput: { n in .items(n ?? 1) }, thresholdPercent: 10,
            setup: words, body: { words, iterations in for _ in 0..<iterations { blackHole(naiveJoin(words)) } }),
    ])

PerfkitMain.run(suites: [joinKit])
