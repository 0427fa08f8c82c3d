import ArgumentParser
import Testing

@testable import PerfkitMain

/// `--gate-metric`: machine-stable counts only, each once, in the order given.
@Suite struct GateMetricsTests {
    @Test func stableMetricsParseInOrderOnce() throws {
        let metrics = try #require(GateMetrics(argument: "allocations, instructions,allocations"))
        #expect(metrics.metrics.map(\.rawValue) == ["allocations", "instructions"])
        #expect(metrics.defaultValueDescription == "allocations,instructions")
    }

    @Test func timesAndEmptyListsAreRefused() {
        #expect(GateMetrics(argument: "instructions,wallTime") == nil)
        #expect(GateMetrics(argument: "cpuTime") == nil)
        #expect(GateMetrics(argument: "") == nil)
        #expect(GateMetrics(argument: ",") == nil)
    }

    @Test func theErrorNamesTheStableMetrics() {
        do {
            _ = try GateOptions.parse(["--baseline", "b.json", "--gate-metric", "wallTime"])
            Issue.record("--gate-metric wallTime was accepted")
        } catch {
            #expect(
                GateOptions.message(for: error)
                    == "The value 'wallTime' is invalid for '--gate-metric <gate-metric>'. "
                    + "Please provide one of 'instructions' and 'allocations'.")
        }
    }

    @Test func gateOptionsStillNeedABaseline() {
        #expect(throws: (any Error).self) { try GateOptions.parse(["--gate-metric", "instructions"]) }
        #expect(throws: Never.self) {
            try GateOptions.parse(["--baseline", "b.json", "--gate-metric", "instructions"])
        }
    }
}
