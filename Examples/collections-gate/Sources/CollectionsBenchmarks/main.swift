import CollectionsWork
import Harness
import PerfkitMain

/// The same 4,096 integers for every benchmark, every process and every build (untimed setup).
@Sendable func input(_: Int?) -> [Int] { fixedRandomIntegers(count: 4096) }

let collections = BenchmarkSuite(
    name: "Collections",
    benchmarks: [
        Benchmark(
            "Collections/deque/churn", throughput: { _ in .items(4096) }, setup: input,
            body: { values, iterations in for _ in 0..<iterations { blackHole(dequeChurn(values)) } }),
        // Hash-dependent: its speed differs between processes with the per-process hash seed.
        Benchmark(
            "Collections/orderedset/deduplicate", throughput: { _ in .items(4096) }, setup: input,
            body: { values, iterations in for _ in 0..<iterations { blackHole(orderedSetDeduplicate(values)) } }),
        Benchmark(
            "Collections/heap/drain", throughput: { _ in .items(4096) }, setup: input,
            body: { values, iterations in for _ in 0..<iterations { blackHole(heapDrain(values)) } }),
        Benchmark(
            "Collections/sort/ints", throughput: { _ in .items(4096) }, setup: input,
            body: { values, iterations in for _ in 0..<iterations { blackHole(sortedCopy(values)) } }),
    ])

PerfkitMain.run(suites: [collections])
