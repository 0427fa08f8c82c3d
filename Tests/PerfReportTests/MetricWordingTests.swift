import Testing

@testable import PerfReport

/// A metric is named and shown the same in every output.
@Suite struct MetricWordingTests {
    @Test func namesAndUnits() {
        #expect(Metric.cpuTime.displayName == "CPU time")
        #expect(Metric.contextSwitches.displayName == "context switches")
        #expect(Metric.wallTime.unitPerOperation == "ns/op")
        #expect(Metric.allocations.unitPerOperation == "allocations/op")
    }

    @Test func valuesInTheirUnits() {
        #expect(Metric.wallTime.formatted(1234) == "1.23 µs")
        #expect(Metric.allocations.formatted(2) == "2 allocs")
        #expect(Metric.instructions.formatted(1500) == "1500 instr")
    }

    @Test func verdictsInWords() {
        #expect(ComparisonEntry.Verdict.withinNoise.displayName == "within noise")
        #expect(ComparisonEntry.Verdict.inconclusive.displayName == "inconclusive (machine busy)")
    }
}
