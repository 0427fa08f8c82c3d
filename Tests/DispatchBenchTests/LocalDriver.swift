import Harness
import PerfReport

/// A stand-in for the lead's runner: runs each selected benchmark for a few small samples and
/// builds the results `analyze` sees, with crude statistics (the CI is the sample range).
enum LocalDriver {
    static func statistics(median: Double, lower: Double, upper: Double) -> Statistics {
        Statistics(
            count: 5, min: lower, max: upper, mean: median, median: median, standardDeviation: 0,
            coefficientOfVariation: 0, medianAbsoluteDeviation: 0, p90: upper, p99: upper,
            medianConfidenceInterval: ConfidenceInterval(lower: lower, upper: upper, level: 0.95),
            outliers: OutlierCounts())
    }

    /// A result whose claim comparisons see `median` ± `halfWidth`: its 50 samples put the 10th
    /// percentile at about `median` with a 95% interval of exactly `median` ± `halfWidth` (the ten
    /// fastest spread over it, the rest at its top), and its statistics say the same of the median.
    static func result(_ id: String, median: Double, halfWidth: Double) -> BenchmarkResult {
        let parts = id.split(separator: "/").map(String.init)
        let fastest = (0..<10).map { median - halfWidth + Double($0) * 2 * halfWidth / 9 }
        let times = fastest + Array(repeating: median + halfWidth, count: 40)
        return BenchmarkResult(
            id: id, suite: parts[0], group: parts[1], name: parts[2],
            samples: times.map { Sample(iterations: 1, wallNanoseconds: $0) },
            wallTime: statistics(median: median, lower: median - halfWidth, upper: median + halfWidth))
    }

    static func run(
        _ suite: BenchmarkSuite, iterations: Int = 200, samples: Int = 5, where selected: (Benchmark) -> Bool
    ) throws -> [BenchmarkResult] {
        var results: [BenchmarkResult] = []
        for benchmark in suite.benchmarks where selected(benchmark) {
            for parameter in benchmark.runParameters {
                let instance = try benchmark.instantiate(parameter: parameter)
                var timings: [Double] = []
                for _ in 0..<samples {
                    let clock = ContinuousClock()
                    let elapsed = clock.measure { instance.run(iterations: iterations) }
                    let (seconds, attoseconds) = elapsed.components
                    timings.append((Double(seconds) * 1e9 + Double(attoseconds) / 1e9) / Double(iterations))
                }
                let counters = instance.counters
                instance.tearDown()
                timings.sort()
                results.append(
                    BenchmarkResult(
                        id: benchmark.id(parameter: parameter), suite: benchmark.suite, group: benchmark.group,
                        name: benchmark.name, parameter: parameter, thresholdPercent: benchmark.thresholdPercent,
                        samples: timings.map {
                            Sample(iterations: iterations, wallNanoseconds: $0 * Double(iterations))
                        },
                        wallTime: statistics(
                            median: timings[timings.count / 2], lower: timings[0], upper: timings.last!),
                        counters: counters))
            }
        }
        suite.analyze?(&results)
        return results
    }
}
