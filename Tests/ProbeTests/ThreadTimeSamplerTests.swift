import Foundation
@testable import Probe
import Testing

/// The calling thread's CPU-time sampler: samples land in the work it runs, named.
@Suite(.serialized) struct ThreadTimeSamplerTests {
    @Test func samplesABusyLoopAndNamesItsFunction() throws {
        let sampler = try ThreadTimeSampler()
        var sink = 0
        var chunks = 0
        // Chunks of about 10 ms of CPU until 100 samples: a loaded machine takes longer, never fewer.
        try sampler.sample {
            sink &+= threadTimeSamplerTestLoop(2_000_000)
            chunks += 1
            return sampler.samples < 100 && chunks < 2_000
        }
        #expect(sink != 42)
        #expect(sampler.samples >= 100)
        #expect(sampler.expirations >= sampler.samples)
        let stacks = sampler.stacks()
        let inLoop = stacks.filter { $0.frames.contains { $0.name.contains("threadTimeSamplerTestLoop") } }
        let share = Double(inLoop.reduce(0) { $0 + $1.samples }) / Double(sampler.samples)
        #expect(share > 0.8, "samples in the loop: \(share); stacks: \(stacks.prefix(3).map(\.frames))")
        // The frames outside the work (the test itself, the sampler, the test runner) are cut off:
        // every stack ends in the chunk's closure.
        for stack in stacks {
            #expect(stack.frames.last?.name.hasPrefix("closure #1") == true, "\(stack.frames.map(\.name))")
            #expect(!stack.frames.contains { $0.name.contains("sample(while:") })
        }
        let loop = try #require(inLoop.first?.frames.first { $0.name.contains("threadTimeSamplerTestLoop") })
        #expect(loop.symbol?.hasPrefix("$s") == true)
    }
}

@inline(never) func threadTimeSamplerTestLoop(_ count: Int) -> Int {
    var value = 0
    for index in 0..<count { value = value &* 31 &+ index }
    return value
}
