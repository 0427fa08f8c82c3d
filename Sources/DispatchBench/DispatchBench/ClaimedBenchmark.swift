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

    init(
        benchmark: Benchmark, statement: @escaping @Sendable (Int?) -> String, judge: @escaping Judge,
        comparedWith: [String] = []
    ) {
        self.benchmark = benchmark
        self.statement = statement
        self.judge = judge
        self.comparedWith = comparedWith
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
        teardown: @escaping (Subject) -> Void = { _ in }, judge: @escaping Judge, comparedWith: [String] = []
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
            statement: { _ in statement }, judge: judge, comparedWith: comparedWith)
    }

    /// A timing claim: faster (or slower) than the case named `baseline` (see `compared(to:)`).
    init<Subject>(
        _ path: String, _ statement: String, parameters: [Int] = [], throughput: Throughput = .items(1),
        thresholdPercent: Double? = nil, scheduling: Benchmark.Scheduling,
        make: @escaping @Sendable (Int?) throws -> Subject, body: @escaping (Subject, Int) -> Void,
        counters: @escaping (Subject) -> [String: Double] = { _ in [:] },
        teardown: @escaping (Subject) -> Void = { _ in }, comparison: TimingComparison
    ) {
        self.init(
            path, statement, parameters: parameters, throughput: throughput, thresholdPercent: thresholdPercent,
            scheduling: scheduling, make: make, body: body, counters: counters, teardown: teardown,
            judge: comparison.judge, comparedWith: [comparison.baseline])
    }
}

extension Benchmark.Scheduling {
    /// GCD comparisons (hops; locks take 150, fan-outs 200): 100 samples in a full run, each
    /// from a visit of its own spread over the run. Their times follow the host's state, which
    /// changes every few tens of seconds on a VM; with five visits a run caught one or two states
    /// and its verdicts followed them. With 50 one-sample visits, paired by round, `NSLock` against
    /// `pthread_mutex` at 50% reads × 2 threads was 1.16× [0.93×–1.27×] in one run and 1.33×
    /// [1.16×–1.43×] in the next; merging pairs of six such runs to 100 samples, the lowest interval
    /// of the 2-thread lock comparisons started at 1.10× (2026-11-23). Quick runs stop at 20.
    static let gcdComparison = Self.everySampleAFreshVisit(sampleFactor: 4)

    /// The lock family: 150 samples in a full run. `Synchronization.Mutex` against `NSLock` at 99%
    /// reads × 2 threads is about 0.9× with a standard error of about 3% over 100 paired rounds, so
    /// the upper end of its interval sat within a few percent of 1 and the verdict changed in 2 of 5
    /// consecutive pairs of runs (0.84×–0.94×, upper ends 0.91×–1.02×). Re-judged on 150 rounds merged
    /// from those runs, every upper end was 0.89×–0.96× (2026-11-23; that evening the host's state had
    /// moved it to 1.07×–1.14×, clear of 1 either way). Makes a full run a few minutes longer.
    static let lockComparison = Self.everySampleAFreshVisit(sampleFactor: 6)
}

/// Sets the claim of every result that one of `cases` produced.
func analyzeClaims(_ cases: [ClaimedBenchmark], _ results: inout [BenchmarkResult]) {
    let all = results
    for claimed in cases {
        for index in results.indices
        where results[index].suite == claimed.benchmark.suite
            && results[index].group == claimed.benchmark.group && results[index].name == claimed.benchmark.name
        {
            let (verdict, evidence) = claimed.judge(results[index], all)
            let result = results[index]
            let compared = claimed.comparedWith.compactMap { name in
                all.first { $0.group == result.group && $0.name == name && $0.parameter == result.parameter }?.id
            }
            results[index].claim = Claim(
                statement: claimed.statement(result.parameter), verdict: verdict, evidence: evidence,
                comparedWith: compared.isEmpty ? nil : compared)
        }
    }
}
