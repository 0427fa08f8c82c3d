import Foundation

/// The benchmarks a `--filter` regular expression selects, matched against each id
/// (`suite/group/case` and `suite/group/case[param]`).
public struct BenchmarkSelection: Sendable {
    /// A filter that selects nothing; a program words it with the name of its own option.
    public struct InvalidFilter: Error, CustomStringConvertible {
        public enum Problem: Sendable, Equatable {
            case notARegularExpression
            case matchesNoBenchmark
        }
        public var filter: String
        public var problem: Problem
        public var description: String {
            switch problem {
            case .notARegularExpression: "filter '\(filter)': not a valid regular expression"
            case .matchesNoBenchmark: "filter '\(filter)': matches no benchmark"
            }
        }
    }

    public let suites: [BenchmarkSuite]

    public init(filter: String?, suites: [BenchmarkSuite]) throws {
        guard let filter else {
            self.suites = suites.filter { !$0.benchmarks.isEmpty }
            self.selectedIDs = nil
            return
        }
        let regex: NSRegularExpression
        do {
            regex = try NSRegularExpression(pattern: filter)
        } catch {
            throw InvalidFilter(filter: filter, problem: .notARegularExpression)
        }
        func matches(_ text: String) -> Bool {
            regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        }
        var selected: [BenchmarkSuite] = []
        var ids: Set<String> = []
        for suite in suites {
            var copy = suite
            copy.benchmarks = suite.benchmarks.filter { benchmark in
                let matching = benchmark.ids.filter(matches)
                ids.formUnion(matching)
                return !matching.isEmpty
            }
            if !copy.benchmarks.isEmpty { selected.append(copy) }
        }
        guard !selected.isEmpty else {
            throw InvalidFilter(filter: filter, problem: .matchesNoBenchmark)
        }
        self.suites = selected
        self.selectedIDs = ids
    }

    /// nil when there is no filter (everything is selected).
    let selectedIDs: Set<String>?

    public var benchmarks: [Benchmark] { suites.flatMap(\.benchmarks) }

    /// The parameter values of `benchmark` that the filter selects.
    public func parameters(of benchmark: Benchmark) -> [Int?] {
        guard let selectedIDs else { return benchmark.runParameters }
        return benchmark.runParameters.filter { selectedIDs.contains(benchmark.id(parameter: $0)) }
    }

    /// Number of (benchmark, parameter) cases selected.
    public var caseCount: Int { benchmarks.reduce(0) { $0 + parameters(of: $1).count } }
}
