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
        #expect(error.kind == .invalidInput)
        #expect(error.description == "duplicate benchmark id: A/g/x")
    }

    /// A malformed id is an error naming it, not a trap when the benchmark is declared.
    @Test(arguments: ["A/x", "A//x", "A/g/x/y", "/g/x", ""])
    func aMalformedIdIsAnErrorNamingIt(id: String) throws {
        let error = try #require(throws: PerfkitError.self) { try RegisteredSuites.checked([suite("A", [id])]) }
        #expect(error.description == "\"\(id)\" is not a benchmark id: it must be suite/group/case, with no part empty")
    }

    @Test func distinctSuitesPass() throws {
        let suites = [suite("A", ["A/g/x"]), suite("B", ["B/g/x"])]
        #expect(try RegisteredSuites.checked(suites).map(\.name) == ["A", "B"])
    }
}
