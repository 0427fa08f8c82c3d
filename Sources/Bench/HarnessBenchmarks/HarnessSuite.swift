import Harness

/// Benchmarks of the harness itself: what an empty body and the optimisation barriers cost.
/// They show what the smallest measurable difference is on this machine.
public let harnessSuite = BenchmarkSuite(
    name: "Harness",
    benchmarks: [
        // Nothing at all: after the clock's overhead is removed this must be well under 1 ns/op.
        Benchmark("Harness/baseline/empty-body") { _ in },
        // The cost of the barrier every other benchmark uses to keep its result alive.
        Benchmark("Harness/baseline/black-hole", throughput: .items(1)) { n in
            for i in 0..<n { blackHole(i) }
        },
        Benchmark("Harness/baseline/identity", throughput: .items(1)) { n in
            var sum = 0
            for i in 0..<n { sum &+= identity(i) }
            blackHole(sum)
        },
        // Exactly one heap allocation of 16 Ints per operation: a known answer for the allocation counter.
        Benchmark("Harness/baseline/allocate-array", throughput: .items(1)) { n in
            for i in 0..<n { blackHole([Int](repeating: i, count: 16)) }
        },
        // A known amount of serial work; scripts/gate-check.sh injects slowdowns into it.
        Benchmark(
            "Harness/fixed-work/fnv1a-4k", throughput: { _ in .bytes(4096) },
            setup: { _ in FixedWork(bytes: 4096) },
            body: { work, n in
                for _ in 0..<n { blackHole(work.hash()) }
            }),
    ])
