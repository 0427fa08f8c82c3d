import PerfReport

/// A named set of benchmarks, plus an optional analysis that runs after they were measured
/// (DispatchBench uses it to decide claims and attach the compiled form of each call).
public struct BenchmarkSuite: Sendable {
    public var name: String
    public var benchmarks: [Benchmark]
    /// Called with this suite's results (only those that ran); may set `claim`, `compiledForm`,
    /// `counters` and `warnings`. It must not change measured samples or statistics.
    public var analyze: (@Sendable (_ results: inout [BenchmarkResult]) -> Void)?

    public init(
        name: String, benchmarks: [Benchmark],
        analyze: (@Sendable (_ results: inout [BenchmarkResult]) -> Void)? = nil
    ) {
        self.name = name
        self.benchmarks = benchmarks
        self.analyze = analyze
    }
}
