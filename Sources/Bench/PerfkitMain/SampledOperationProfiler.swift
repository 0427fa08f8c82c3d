import Foundation
import Harness
import PerfReport
import Probe

/// `run --profile`'s time profiles: Probe's CPU-clock sampler on the benchmark's thread (1 ms of
/// CPU per expiration) for ``ProfilingPass``'s length, its stacks made a per-operation profile the
/// way callgrind's are (``CallgrindCallGraph``), in ns, with the samples (draws) behind it.
struct SampledOperationProfiler: OperationProfiler {
    func profile(_ chunk: () -> Int) -> Result<FunctionProfile, OperationProfilerError> {
        let sampler: ThreadTimeSampler
        do {
            sampler = try ThreadTimeSampler()
        } catch {
            return .failure(OperationProfilerError(.samplerUnavailable, error.message))
        }
        var operations = 0
        let start = Date()
        do {
            try sampler.sample {
                operations += chunk()
                return ProfilingPass.continues(
                    seconds: Date().timeIntervalSince(start), samples: sampler.samples)
            }
        } catch {
            return .failure(OperationProfilerError(.samplerUnavailable, error.message))
        }
        let stacks = sampler.stacks()
        let samples = stacks.reduce(0) { $0 + $1.samples }
        guard samples > 0 else {
            return .failure(
                OperationProfilerError(.noSamples, "no CPU-time sample landed in \(operations) operations"))
        }
        let interval = Double(sampler.interval)
        let graph = CallgrindCallGraph(
            sampledStacks: stacks.map { stack in
                (stack.frames.map { $0.symbol ?? $0.name }, Double(stack.expirations) * interval)
            })
        var profile = graph.profile(iterations: operations)
        profile.samples = samples
        return .success(profile)
    }
}
