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
        // Hash-dependent by construction: its processes lie far apart (a routing table's lookups).
        Benchmark(
            "Collections/set/route-lookups", throughput: { _ in .items(1536) },
            setup: { _ in makeRouteTable(fixedRandomIntegers(count: 4096)) },
            body: { table, iterations in for _ in 0..<iterations { blackHole(routeLookups(table)) } }),
    ])

PerfkitMain.run(suites: [collections])
