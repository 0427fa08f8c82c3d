import PerfReport

/// Profiles a benchmark's operation by sampling the calling thread's CPU time, in a pass after its
/// measurement (so sampling never touches the measured samples). The `perfkit` executable passes
/// one backed by Probe's sampler with `--profile`; Harness itself links no sampler.
package protocol OperationProfiler: Sendable {
    /// Calls `chunk` (which runs operations and returns how many) on the calling thread until the
    /// profile has enough samples (``ProfilingPass``); the CPU time per operation by function, or
    /// why none could be taken (for the result's warning).
    func profile(_ chunk: () -> Int) -> Result<FunctionProfile, OperationProfilerError>
}

/// Why a time profile could not be taken.
package struct OperationProfilerError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// The sampler could not start (its signal or timer unavailable).
        case samplerUnavailable
        /// The operation ran without a sample landing in it (it waits rather than computes).
        case noSamples
    }

    package var kind: Kind
    package var message: String
    package var description: String { message }

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}

/// How long the profiling pass runs: at least ``minimumSeconds`` and ``minimumSamples`` timer
/// samples (a sample per 1 ms of CPU, or per kernel tick where that is longer: 4 ms at 250 Hz), and
/// never past ``maximumSeconds`` (an operation that mostly waits, a coarse tick).
package enum ProfilingPass {
    package static let minimumSeconds = 0.5
    package static let minimumSamples = 300
    package static let maximumSeconds = 2.0

    /// Whether a pass that has run `seconds` and taken `samples` should go on.
    package static func continues(seconds: Double, samples: Int) -> Bool {
        seconds < maximumSeconds && (seconds < minimumSeconds || samples < minimumSamples)
    }
}

extension CallgrindCallGraph {
    /// The call graph of sampled stacks (innermost first, by the symbol the binary has, else the
    /// name), each worth `value` (ns of CPU time): the leaf's own time, and each caller→callee
    /// pair's once per stack, so recursion is not counted twice. The outer frames every stack shares
    /// (the runner's and the profiler's) are left out: each would hold all the time and say nothing.
    /// ``profile(iterations:)`` then keeps the same functions an instruction profile would.
    package init(sampledStacks: [(frames: [String], value: Double)]) {
        self.init()
        let stacks = sampledStacks.filter { !$0.frames.isEmpty }
        var shared = (stacks.map(\.frames.count).min() ?? 1) - 1
        if let first = stacks.first?.frames {
            for stack in stacks.dropFirst() {
                while shared > 0, !stack.frames.suffix(shared).elementsEqual(first.suffix(shared)) { shared -= 1 }
            }
        }
        for (frames, value) in stacks.map({ (Array($0.frames.dropLast(shared)), $0.value) }) {
            guard let leaf = frames.first else { continue }
            exclusive[leaf, default: 0] += value
            var seen: Set<Edge> = []
            for index in frames.indices.dropLast() where frames[index] != frames[index + 1] {
                let edge = Edge(caller: frames[index + 1], callee: frames[index])
                if seen.insert(edge).inserted { calls[edge, default: 0] += value }
            }
        }
    }
}
