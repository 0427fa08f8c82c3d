import DispatchBench
import Harness
import HarnessBenchmarks
import PixelArtBenchmarks
import ProbeBenchmarks

/// Every benchmark suite `perfkit run` knows about. A part of perfkit adds its benchmarks by
/// adding its suite here.
enum Suites {
    static var all: [BenchmarkSuite] {
        [
            harnessSuite,
            dispatchBenchSuite,
            pixelArtSuite,
            probeSuite,
        ]
    }
}
