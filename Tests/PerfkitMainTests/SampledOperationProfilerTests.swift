import Foundation
import Harness
import PerfReport
import Testing

@testable import PerfkitMain

/// `run --profile`'s profiler on real samples: an operation whose one function does three times
/// the work is told apart from its base by that function's share of the time.
@Suite(.serialized) struct SampledOperationProfilerTests {
    @Test func theFunctionThatDoesMoreWorkIsListedAndTheOtherIsNot() throws {
        var sink = 0
        let profiler = SampledOperationProfiler()
        let base = try profiler.profile {
            sink &+= sampledWorkSteady(100_000) &+ sampledWorkGrown(100_000)
            return 1
        }.get()
        let new = try profiler.profile {
            sink &+= sampledWorkSteady(100_000) &+ sampledWorkGrown(300_000)
            return 1
        }.get()
        #expect(sink != 42)
        #expect((base.samples ?? 0) > 0 && (new.samples ?? 0) > 0)
        let steady = try #require(base.functions.first { $0.name.contains("sampledWorkSteady") })
        #expect(steady.symbol?.hasPrefix("$s") == true, "kept with its mangled symbol")
        let differential = try #require(FunctionGrowth.timeDifferential(base: base, current: new))
        #expect(differential.grown.first?.name.contains("sampledWorkGrown") == true, "\(differential.grown)")
        #expect(!differential.grown.contains { $0.name.contains("sampledWorkSteady") })
    }
}

/// Two loops of their own, with the work inside each (no library call to spend it in).
@inline(never) func sampledWorkSteady(_ count: Int) -> Int {
    var value = 0
    var index = 0
    while index < count {
        value = value &* 31 &+ index
        index &+= 1
    }
    return value
}

@inline(never) func sampledWorkGrown(_ count: Int) -> Int {
    var value = 1
    var index = 0
    while index < count {
        value = value &* 37 &+ index
        index &+= 1
    }
    return value
}
