import Harness
import Testing

@testable import PerfkitMain

@Suite struct RegisteredSuitesTests {
    func suite(_ name: String, _ ids: [String]) -> BenchmarkSuite {
        BenchmarkSuite(name: name, benchmarks: ids.map { id in Benchmark(id) { n in blackHole(n) } })
    }

    @Test func anExecutableWithoutBenchmarksIsAnError() {
        #expect(throws: PerfkitError.self) { try RegisteredSuites.checked([]) }
        #expect(throws: PerfkitError.self) { try RegisteredSuites.checked([suite("Empty", [])]) }
    }

    @Test func duplicateIdsAcrossSuitesAreNamed() throws {
        let error = try #require(throws: PerfkitError.self) {
            try RegisteredSuites.checked([suite("A", ["A/g/x", "A/g/y"]), suite("B", ["A/g/x"])])
        }
        #expect(error.description == "duplicate benchmark id: A/g/x")
    }

    @Test func distinctSuitesPass() throws {
        let suites = [suite("A", ["A/g/x"]), suite("B", ["B/g/x"])]
        #expect(try RegisteredSuites.checked(suites).map(\.name) == ["A", "B"])
    }
}
