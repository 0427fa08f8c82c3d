import Harness
import JoinKit
import PerfkitMain

// A second benchmark executable of the package: `swift package perfkit run` builds and runs both
// and merges their reports into one.
let splitting = BenchmarkSuite(
    name: "JoinKitSplit",
    benchmarks: [
        Benchmark(
            "JoinKit/split/fields", parameters: [16, 256], throughput: { n in .items(n ?? 1) },
            setup: { count in (0..<(count ?? 1)).map(String.init).joined(separator: ",") },
            body: { line, iterations in for _ in 0..<iterations { blackHole(split(line)) } })
    ])

PerfkitMain.run(suites: [splitting])
