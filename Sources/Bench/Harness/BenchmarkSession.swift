import Foundation
import PerfReport

/// Runs a selection of benchmarks and assembles the report: measure every case, analyse each
/// result, let each suite's `analyze` add its claims, then wrap it all with the environment.
public struct BenchmarkSession {
    /// Progress of a run, for a progress line.
    public struct Progress: Sendable {
        public var index: Int
        public var total: Int
        public var id: String
        /// The round over the selection (1-based) and how many there are.
        public var round: Int
        public var rounds: Int
        public var elapsedSeconds: Double
    }

    /// One benchmark at one parameter value.
    private struct SelectedCase {
        var suite: Int
        var benchmark: Benchmark
        var parameter: Int?
        var id: String { benchmark.id(parameter: parameter) }
        var groupKey: String { "\(suite)/\(benchmark.group)" }
    }

    public var selection: BenchmarkSelection
    public var configuration: RunConfiguration
    public var settings: RunSettings
    public var buildConfiguration: String

    public init(
        selection: BenchmarkSelection, configuration: RunConfiguration, settings: RunSettings,
        buildConfiguration: String
    ) {
        self.selection = selection
        self.configuration = configuration
        self.settings = settings
        self.buildConfiguration = buildConfiguration
    }

    /// Measures everything selected, in `configuration.rounds` rounds over the selection (see
    /// `Benchmark.Scheduling`). `shouldStop` is polled between samples; when it turns true the
    /// report holds what finished and is marked incomplete.
    public func run(
        shouldStop: @escaping () -> Bool = { false }, progress: (Progress) -> Void = { _ in }
    ) -> Report {
        let createdAt = Date()
        let environment = EnvironmentCapture.capture(buildConfiguration: buildConfiguration)
        let runner = BenchmarkRunner(configuration: configuration)
        let cases = selection.suites.indices.flatMap { suite in
            selection.suites[suite].benchmarks.flatMap { benchmark in
                selection.parameters(of: benchmark).map {
                    SelectedCase(suite: suite, benchmark: benchmark, parameter: $0)
                }
            }
        }
        let plan = VisitPlan(
            schedulings: cases.map(\.benchmark.scheduling), configuration: configuration,
            // Instruction counts are deterministic: one visit says all, and valgrind makes visits slow.
            oneVisitEach: runner.callgrind != nil)
        let rounds = plan.rounds
        // Within a round a group's visits go parameter by parameter, so that benchmarks compared at
        // the same parameter (a lock at one thread against another at one thread) are measured side
        // by side, a visit apart, and share the host's state; their samples can then be paired by round.
        var groupStart: [String: Int] = [:]
        for index in cases.indices where groupStart[cases[index].groupKey] == nil {
            groupStart[cases[index].groupKey] = index
        }
        let order = cases.indices.sorted {
            (groupStart[cases[$0].groupKey]!, cases[$0].parameter ?? .min, $0)
                < (groupStart[cases[$1].groupKey]!, cases[$1].parameter ?? .min, $1)
        }
        let visits = (0..<rounds).map { round in order.filter { plan.visit(case: $0, round: round) != nil } }
        var total = visits.reduce(0) { $0 + $1.count }
        let start = MonotonicClock.now()
        var done = 0
        var measurements: [Measurement?] = Array(repeating: nil, count: cases.count)
        var failed = Set<Int>()
        var failures: [String] = []
        var stoppedInRound: Int?
        // Cases whose answer is clear (`configuration.stopping`): later rounds pass them by.
        var settled = Set<Int>()
        var visitsMade = Array(repeating: 0, count: cases.count)
        func settle(_ index: Int, after round: Int) {
            guard settled.insert(index).inserted else { return }
            total -= visits[(round + 1)...].count { $0.contains(index) }
        }

        rounds: for (round, indices) in visits.enumerated() {
            for index in indices where !failed.contains(index) && !settled.contains(index) {
                let selected = cases[index]
                progress(
                    Progress(
                        index: done, total: total, id: selected.id, round: round + 1, rounds: rounds,
                        elapsedSeconds: seconds(since: start)))
                do {
                    let visit = plan.visit(case: index, round: round)!
                    let calibrated = measurements[index]?.samples.first?.iterations
                    if var measurement = try runner.measure(
                        selected.benchmark, parameter: selected.parameter, visit: visit, iterations: calibrated,
                        shouldStop: shouldStop)
                    {
                        for sample in measurement.samples.indices { measurement.samples[sample].round = round }
                        if measurements[index] == nil {
                            measurements[index] = measurement
                        } else {
                            measurements[index]!.append(measurement)
                        }
                        visitsMade[index] += 1
                    }
                } catch {
                    failed.insert(index)
                    measurements[index] = nil
                    failures.append("\(selected.id): setup failed: \(error)")
                }
                done += 1
                if shouldStop() {
                    stoppedInRound = round
                    break rounds
                }
                if let stopping = configuration.stopping, let measurement = measurements[index],
                    isPreciseEnough(selected, measurement, visits: visitsMade[index], stopping)
                {
                    settle(index, after: round)
                }
            }
            let fresh = cases.indices.filter {
                !failed.contains($0) && cases[$0].benchmark.scheduling.takesEverySampleFromAFreshVisit
            }
            if let stopping = configuration.stopping, stopping.looks.contains(round + 1),
                fresh.contains(where: { !settled.contains($0) })
            {
                let open = openCases(fresh, cases: cases, measurements: measurements, stopping: stopping)
                for index in fresh where measurements[index] != nil && !open.contains(cases[index].id) {
                    settle(index, after: round)
                }
            }
        }

        // A separate pass after every measurement, so that sampling never touches a measured sample.
        if let profiler = configuration.operationProfiler, runner.callgrind == nil, stoppedInRound == nil {
            for index in cases.indices where measurements[index] != nil && !shouldStop() {
                let selected = cases[index]
                let iterations = measurements[index]!.samples.first?.iterations ?? 1
                do {
                    switch try runner.profile(
                        selected.benchmark, parameter: selected.parameter, iterations: iterations, profiler: profiler)
                    {
                    case .success(let profile): measurements[index]!.timeProfile = profile
                    case .failure(let error): measurements[index]!.timeProfileUnavailable = error.message
                    }
                } catch {
                    measurements[index]!.timeProfileUnavailable = "setup failed: \(error)"
                }
            }
        }

        var results: [BenchmarkResult] = []
        for (suiteIndex, suite) in selection.suites.enumerated() {
            var suiteResults = cases.indices
                .filter { cases[$0].suite == suiteIndex }
                .compactMap { measurements[$0].map(ResultAnalysis.result(of:)) }
            if let analyze = suite.analyze, !suiteResults.isEmpty {
                DecisionLevel.$current.withValue(configuration.decisionLevel) { analyze(&suiteResults) }
            }
            for index in suiteResults.indices { suiteResults[index].executableBuildID = ExecutableIdentity.buildID }
            results += suiteResults
        }
        if let round = stoppedInRound {
            failures.insert(
                round == 0
                    ? "interrupted after \(results.count) of \(cases.count) benchmarks"
                    : "interrupted in round \(round + 1) of \(rounds): results hold the samples of the rounds that ran",
                at: 0)
        }
        let incompleteReason = failures.isEmpty ? nil : failures.joined(separator: "; ")
        progress(
            Progress(
                index: done, total: total, id: "", round: rounds, rounds: rounds,
                elapsedSeconds: seconds(since: start)))

        var settings = settings  // records the rounds actually used
        settings.rounds = rounds
        return Report(
            createdAt: createdAt,
            complete: incompleteReason == nil,
            incompleteReason: incompleteReason,
            environment: environment,
            settings: settings,
            clock: ClockInfo(
                source: MonotonicClock.source, resolutionNanoseconds: MonotonicClock.resolutionNanoseconds,
                overheadNanoseconds: runner.clockOverheadNanoseconds),
            metrics: runner.metricAvailability,
            benchmarks: results)
    }

    /// Whether an interleaved case may stop before its last visit: only in a suite without an
    /// analysis, whose claims (DispatchBench's unpaired comparisons) are judged on all its samples.
    private func isPreciseEnough(
        _ selected: SelectedCase, _ measurement: Measurement, visits: Int, _ stopping: SequentialStopping
    ) -> Bool {
        guard case .interleaved = selected.benchmark.scheduling, visits >= stopping.minimumVisits,
            selection.suites[selected.suite].analyze == nil
        else { return false }
        return stopping.isPrecise(ResultAnalysis.result(of: measurement))
    }

    /// A look: the ids among `indices` (and those their claims compare with) whose answers are still
    /// open, judged at ``DecisionLevel/interim`` on the samples so far.
    private func openCases(
        _ indices: [Int], cases: [SelectedCase], measurements: [Measurement?], stopping: SequentialStopping
    ) -> Set<String> {
        var open = Set<String>()
        for (suiteIndex, suite) in selection.suites.enumerated() {
            var results = indices.filter { cases[$0].suite == suiteIndex }
                .compactMap { measurements[$0].map(ResultAnalysis.result(of:)) }
            guard !results.isEmpty else { continue }
            if let analyze = suite.analyze {
                DecisionLevel.$current.withValue(DecisionLevel.interim) { analyze(&results) }
            }
            open.formUnion(stopping.openIDs(of: results))
        }
        return open
    }

    private func seconds(since start: UInt64) -> Double { Double(MonotonicClock.now() - start) / 1e9 }
}
