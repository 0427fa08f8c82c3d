import Harness
import PerfReport
import Testing

@testable import PerfkitMain

/// Harness says what is missing; the command line says which of its flags to use about it.
@Suite struct CommandLineWordingTests {
    @Test func anInvalidFilterIsWordedWithTheFlag() throws {
        let error = try #require(throws: BenchmarkSelection.InvalidFilter.self) {
            try BenchmarkSelection(filter: "nothing", suites: [BenchmarkSuite(name: "S", benchmarks: [])])
        }
        #expect(
            error.commandLineDescription
                == "--filter 'nothing': matches no benchmark (the `list` command shows them all)")
        let bad = try #require(throws: BenchmarkSelection.InvalidFilter.self) {
            try BenchmarkSelection(filter: "(", suites: [])
        }
        #expect(bad.commandLineDescription == "--filter '(': not a valid regular expression")
    }

    @Test func aMetricNotMeasuredNamesTheFlagThatMeasuresIt() {
        let runner = BenchmarkRunner(
            configuration: {
                var configuration = RunConfiguration(hardwareCounters: false)
                configuration.remedies = .commandLine
                return configuration
            }())
        let allocations = runner.metricAvailability.first { $0.metric == .allocations }
        #expect(allocations?.reason == "not requested (use --allocations)")
    }
}
