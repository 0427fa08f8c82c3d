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
        public var elapsedSeconds: Double
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

    /// Measures everything selected. `shouldStop` is polled between samples; when it turns true
    /// the report holds what finished and is marked incomplete.
    public func run(
        shouldStop: @escaping () -> Bool = { false }, progress: (Progress) -> Void = { _ in }
    ) -> Report {
        let createdAt = Date()
        let environment = EnvironmentCapture.capture(buildConfiguration: buildConfiguration)
        let runner = BenchmarkRunner(configuration: configuration)
        let total = selection.caseCount
        let start = MonotonicClock.now()
        var index = 0
        var results: [BenchmarkResult] = []
        var failures: [String] = []
        var stopped = false

        for suite in selection.suites {
            var suiteResults: [BenchmarkResult] = []
            cases: for benchmark in suite.benchmarks {
                for parameter in selection.parameters(of: benchmark) {
                    let id = benchmark.id(parameter: parameter)
                    progress(Progress(index: index, total: total, id: id, elapsedSeconds: seconds(since: start)))
                    do {
                        if let measurement = try runner.measure(benchmark, parameter: parameter, shouldStop: shouldStop)
                        {
                            suiteResults.append(ResultAnalysis.result(of: measurement))
                        }
                    } catch {
                        failures.append("\(id): setup failed: \(error)")
                    }
                    index += 1
                    if shouldStop() {
                        stopped = true
                        break cases
                    }
                }
            }
            if let analyze = suite.analyze, !suiteResults.isEmpty {
                analyze(&suiteResults)
            }
            results += suiteResults
            if stopped { break }
        }
        if stopped {
            failures.insert("interrupted after \(results.count) of \(total) benchmarks", at: 0)
        }
        let incompleteReason = failures.isEmpty ? nil : failures.joined(separator: "; ")
        progress(Progress(index: index, total: total, id: "", elapsedSeconds: seconds(since: start)))

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

    private func seconds(since start: UInt64) -> Double { Double(MonotonicClock.now() - start) / 1e9 }
}
