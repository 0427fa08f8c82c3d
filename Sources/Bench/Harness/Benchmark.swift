import PerfReport

/// A benchmark: a `suite/group/case` path, optional parameters (input sizes), and a way to make
/// a prepared instance whose `run(iterations:)` is the timed region.
///
/// Setup happens when the instance is made and teardown when it is released, both outside the
/// timed region.
public struct Benchmark: Sendable {
    public let suite: String
    public let group: String
    public let name: String
    /// Input sizes to run the benchmark at; empty for an unparameterised benchmark.
    public let parameters: [Int]
    /// Regression threshold in percent, when this benchmark is noisier (or quieter) than the default.
    public let thresholdPercent: Double?
    /// Whether its samples may be spread over the run's rounds.
    public let scheduling: Scheduling
    let throughputForParameter: @Sendable (Int?) -> Throughput?
    let makeInstance: @Sendable (Int?) throws -> any BenchmarkInstance
    /// Why the path given is not a benchmark id (`suite/group/case`, no part empty), or nil. Not a
    /// trap in the initialiser: the suites handed to `PerfkitMain` are checked, and a malformed id
    /// is a one-line error there, as a duplicate one is.
    package let pathProblem: String?

    /// The general form: `instantiate` does the setup for one parameter value and returns the
    /// object that runs the timed iterations.
    public init(
        _ path: String,
        parameters: [Int] = [],
        throughput: @escaping @Sendable (Int?) -> Throughput? = { _ in nil },
        thresholdPercent: Double? = nil,
        scheduling: Scheduling = .interleaved,
        instantiate: @escaping @Sendable (Int?) throws -> any BenchmarkInstance
    ) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 3 && !parts.contains(where: \.isEmpty) {
            pathProblem = nil
        } else {
            pathProblem = "\"\(path)\" is not a benchmark id: it must be suite/group/case, with no part empty"
        }
        self.suite = parts[0]
        self.group = parts.count > 1 ? parts[1] : ""
        self.name = parts.count > 2 ? parts[2...].joined(separator: "/") : ""
        self.parameters = parameters
        self.thresholdPercent = thresholdPercent
        self.scheduling = scheduling
        self.throughputForParameter = throughput
        self.makeInstance = instantiate
    }

    /// A benchmark whose body needs no prepared state.
    public init(
        _ path: String,
        throughput: Throughput? = nil,
        thresholdPercent: Double? = nil,
        body: @escaping @Sendable (_ iterations: Int) -> Void
    ) {
        self.init(
            path, throughput: { _ in throughput }, thresholdPercent: thresholdPercent,
            instantiate: { _ in ClosureInstance(state: (), body: { _, n in body(n) }, teardown: nil) })
    }

    /// A benchmark with state made by `setup` (untimed) for each parameter value, used by `body`
    /// (timed) and released by `teardown` (untimed).
    public init<State>(
        _ path: String,
        parameters: [Int] = [],
        throughput: @escaping @Sendable (Int?) -> Throughput? = { _ in nil },
        thresholdPercent: Double? = nil,
        scheduling: Scheduling = .interleaved,
        setup: @escaping @Sendable (_ parameter: Int?) throws -> State,
        body: @escaping @Sendable (_ state: State, _ iterations: Int) -> Void,
        teardown: (@Sendable (_ state: State) -> Void)? = nil
    ) {
        self.init(
            path, parameters: parameters, throughput: throughput, thresholdPercent: thresholdPercent,
            scheduling: scheduling
        ) {
            parameter in
            ClosureInstance(state: try setup(parameter), body: body, teardown: teardown)
        }
    }

    public var path: String { "\(suite)/\(group)/\(name)" }

    /// The report id of one parameter value: `suite/group/case` or `suite/group/case[param]`.
    public func id(parameter: Int?) -> String {
        parameter.map { "\(path)[\($0)]" } ?? path
    }

    /// The ids this benchmark produces, one per parameter value.
    public var ids: [String] { runParameters.map(id(parameter:)) }

    /// `[nil]` for an unparameterised benchmark, so callers can always iterate.
    public var runParameters: [Int?] { parameters.isEmpty ? [nil] : parameters.map { $0 } }

    public func throughput(parameter: Int?) -> Throughput? { throughputForParameter(parameter) }

    public func instantiate(parameter: Int?) throws -> any BenchmarkInstance { try makeInstance(parameter) }
}

extension Benchmark {
    /// How a benchmark's samples are collected over a run of several rounds.
    public enum Scheduling: Sendable, Equatable {
        /// A share of the samples in each of `RunConfiguration.rounds` visits spread evenly over the
        /// run, each visit to a freshly made instance.
        case interleaved
        /// One sample per visit, from a freshly made instance each time, the visits spread evenly
        /// over the run (which then has at least as many rounds as this benchmark has samples),
        /// and `sampleFactor` times the configured samples and time budget. For benchmarks whose
        /// time depends on a state of the machine that lasts for seconds, such as a contended lock
        /// on a VM, whose cost changes with the host's state every few tens of seconds: each sample
        /// then catches a moment of its own, and more of them decide a comparison that the spread
        /// of those moments would otherwise leave to chance.
        case everySampleAFreshVisit(sampleFactor: Int = 1)
        /// All samples in the first round from one instance: for benchmarks whose counters describe
        /// the instance's whole life, or whose setup is too costly to repeat.
        case oneVisit

        var takesEverySampleFromAFreshVisit: Bool {
            if case .everySampleAFreshVisit = self { return true }
            return false
        }
    }
}

/// A prepared benchmark: `run(iterations:)` is timed, everything else is not.
public protocol BenchmarkInstance: AnyObject {
    /// Runs the measured operation `iterations` times.
    func run(iterations: Int)
    /// Extra numbers the benchmark observed about itself (observer firings, peak threads, …),
    /// read once after the last sample.
    var counters: [String: Double] { get }
    func tearDown()
}

extension BenchmarkInstance {
    public var counters: [String: Double] { [:] }
    public func tearDown() {}
}

final class ClosureInstance<State>: BenchmarkInstance {
    let state: State
    let body: (State, Int) -> Void
    let teardown: ((State) -> Void)?

    init(state: State, body: @escaping (State, Int) -> Void, teardown: ((State) -> Void)?) {
        self.state = state
        self.body = body
        self.teardown = teardown
    }

    func run(iterations: Int) { body(state, iterations) }
    func tearDown() { teardown?(state) }
}
