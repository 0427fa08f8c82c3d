/// DispatchBench: benchmarks that test what Swift dispatch, inout and GCD patterns cost, each
/// with the claim it tests and a verdict decided from the measurements (and, for dispatch, from
/// the compiled form of the measured function in the running binary).
import Harness
import PerfMachineCode
import PerfReport

public let dispatchBenchSuite = BenchmarkSuite(
    name: "DispatchBench",
    benchmarks: dispatchCases.map(\.benchmark) + claimedCases.map(\.benchmark),
    analyze: { results in
        let needsDisassembly = results.contains { $0.group == "dispatch" }
        let disassembler = needsDisassembly ? try? ExecutableDisassembler() : nil
        analyzeDispatch(&results, disassembler: disassembler)
        analyzeClaims(claimedCases, &results)
    })

/// The inout and GCD benchmarks, whose claims are decided from counters and times.
let claimedCases: [ClaimedBenchmark] =
    inoutCases + lockCases + fanOutCases + hopCases + threadExplosionCases + qosCases + safetyCases
