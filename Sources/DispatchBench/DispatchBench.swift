/// DispatchBench: benchmarks that test what Swift dispatch, inout and GCD patterns cost, each
/// with the claim it tests and a verdict decided from the measurements (and, for dispatch, from
/// the compiled form of the measured function in the running binary).
import Harness
import PerfReport

public let dispatchBenchSuite = BenchmarkSuite(
    name: "DispatchBench",
    benchmarks: dispatchCases.map(\.benchmark) + inoutCases.map(\.benchmark),
    analyze: { results in
        let needsDisassembly = results.contains { $0.group == "dispatch" || $0.group == "particle" }
        let disassembler = needsDisassembly ? try? ExecutableDisassembler() : nil
        analyzeDispatch(&results, disassembler: disassembler)
        analyzeInout(&results)
    })
