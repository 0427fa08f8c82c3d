import Harness
import PerfReport

/// A benchmark and the claim it tests, decided after measurement from its counters and times
/// (and those of the other results, for comparisons).
struct ClaimedBenchmark: Sendable {
    typealias Judge = @Sendable (_ result: BenchmarkResult, _ all: [BenchmarkResult]) -> (Claim.Verdict, String)

    var benchmark: Benchmark
    var statement: @Sendable (_ parameter: Int?) -> String
    var judge: Judge
    /// The names of the cases (same group, same parameter) whose times the judge compares with.
    var comparedWith: [String]
    /// How many CPUs the claim's threads need at once for each parameter: 1 for a claim about one
    /// thread's work; the thread count for one about threads contending (the lock family). A claim
    /// that needs two or more is inconclusive when other work wanted those CPUs while it was measured
    /// (`BusyMachine`, docs/dispatchbench-findings.md#claims-on-a-busy-machine).
    var cpusNeeded: @Sendable (_ parameter: Int?) -> Int

    init(
        benchmark: Benchmark, statement: @escaping @Sendable (Int?) -> String, judge: @escaping Judge,
        comparedWith: [String] = [], cpusNeeded: @escaping @Sendable (Int?) -> Int = { _ in 1 }
    ) {
        self.benchmark = benchmark
        self.statement = statement
        self.judge = judge
        self.comparedWith = comparedWith
        self.cpusNeeded = cpusNeeded
    }

    /// A benchmark over a subject made (untimed) for each parameter, whose counters are read from it.
    /// Measured in one visit unless `scheduling` says otherwise: counters such as observer firings,
    /// peak threads or completion order describe one subject's whole life. Cases whose counters do
    /// not (lock contention, fan-out, hops) take every sample from a visit of its own, spread over
    /// the run (`.gcdComparison`), so a busy spell or a state of the host touches only part of them.
    init<Subject>(
        _ path: String, _ statement: String, parameters: [Int] = [], throughput: Throughput = .items(1),
        thresholdPercent: Double? = nil, scheduling: Benchmark.Scheduling = .oneVisit,
        make: @escaping @Sendable (Int?) throws -> Subject, body: @escaping (Subject, Int) -> Void,
        counters: @escaping (Subject) -> [String: Double] = { _ in [:] },
        teardown: @escaping (Subject) -> Void = { _ in }, judge: @escaping Judge, comparedWith: [String] = [],
        cpusNeeded: @escaping @Sendable (Int?) -> Int = { _ in 1 }
    ) {
        nonisolated(unsafe) let body = body
        nonisolated(unsafe) let counters = counters
        nonisolated(unsafe) let teardown = teardown
        self.init(
            benchmark: Benchmark(
                path, parameters: parameters, throughput: { _ in throughput }, thresholdPercent: thresholdPercent,
                scheduling: scheduling
            ) { parameter in
                CountingInstance(try make(parameter), body: body, counters: counters, teardown: teardown)
            },
            statement: { _ in statement }, judge: judge, comparedWith: comparedWith, cpusNeeded: cpusNeeded)
    }

    /// A timing claim: faster (or slower) than the case named `baseline` (see `compared(to:)`).
    init<Subject>(
        _ path: String, _ statement: String, parameters: [Int] = [], throughput: Throughput = .items(1),
        thresholdPercent: Double? = nil, scheduling: Benchmark.Scheduling,
        make: @escaping @Sendable (Int?) throws -> Subject, body: @escaping (Subject, Int) -> Void,
        counters: @escaping (Subject) -> [String: Double] = { _ in [:] },
        teardown: @escaping (Subject) -> Void = { _ in }, comparison: TimingComparison,
        cpusNeeded: @escaping @Sendable (Int?) -> Int = { _ in 1 }
    ) {
        self.init(
            path, statement, parameters: parameters, throughput: throughput, thresholdPercent: thresholdPercent,
            scheduling: scheduling, make: make, body: body, counters: counters, teardown: teardown,
            judge: comparison.judge, comparedWith: [comparison.baseline], cpusNeeded: cpusNeeded)
    }
}

extension Benchmark.Scheduling {
    /// GCD comparisons (hops; locks take 150, fan-outs 200): 100 samples in a full run (20 in a quick
    /// one), each from a visit of its own, so a run sees the host's states in proportion
    /// (docs/dispatchbench-findings.md#the-constants-and-the-runs-that-set-them).
    static let gcdComparison = Self.everySampleAFreshVisit(sampleFactor: 4)

    /// The lock family: 150 samples in a full run, so that ratios near 0.9× stay clear of 1; it makes
    /// a full run a few minutes longer (docs/dispatchbench-findings.md#the-constants-and-the-runs-that-set-them).
    static let lockComparison = Self.everySampleAFreshVisit(sampleFactor: 6)
}

/// Sets the claim of every result that one of `cases` produced; `processors` is what a claim that
/// needs several CPUs had (`BusyMachine`).
func analyzeClaims(
    _ cases: [ClaimedBenchmark], _ results: inout [BenchmarkResult], processors: Int = processorCount
) {
    let all = results
    for claimed in cases {
        for index in results.indices
        where results[index].suite == claimed.benchmark.suite
            && results[index].group == claimed.benchmark.group && results[index].name == claimed.benchmark.name
        {
            let result = results[index]
            let comparedResults = claimed.comparedWith.compactMap { name in
                all.first { $0.group == result.group && $0.name == name && $0.parameter == result.parameter }
            }
            let compared = comparedResults.map(\.id)
            let (verdict, evidence) = BusyMachine(
                cpusNeeded: claimed.cpusNeeded(result.parameter), processors: processors,
                sides: [BusyMachine.Side(result, label: "this case")]
                    + comparedResults.map { BusyMachine.Side($0, label: $0.name) }
            ).judge(claimed.judge(result, all))
            results[index].claim = Claim(
                statement: claimed.statement(result.parameter), verdict: verdict, evidence: evidence,
                comparedWith: compared.isEmpty ? nil : compared)
        }
    }
}
