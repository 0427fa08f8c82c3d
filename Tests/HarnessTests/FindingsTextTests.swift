import Foundation
import Testing

@testable import Harness
@testable import PerfReport

@Suite struct FindingsTextTests {
    func result(_ id: String, median: Double = 100, claim: Claim? = nil, warnings: [Warning] = []) -> BenchmarkResult {
        let parts = id.split(separator: "/").map(String.init)
        let samples = [median, median * 1.01, median * 0.99].map { Sample(iterations: 1, wallNanoseconds: $0) }
        return BenchmarkResult(
            id: id, suite: parts[0], group: parts[1], name: parts[2], samples: samples,
            wallTime: SampleStatistics.summarize(samples.map(\.wallNanosecondsPerOperation)), warnings: warnings,
            claim: claim)
    }

    func report(_ benchmarks: [BenchmarkResult]) -> Report {
        Report(
            createdAt: Date(timeIntervalSince1970: 0),
            environment: Synthetic.environment,
            settings: TestSuites.settings(TestSuites.fast),
            clock: ClockInfo(source: "CLOCK_MONOTONIC", resolutionNanoseconds: 1, overheadNanoseconds: 20),
            metrics: [], benchmarks: benchmarks)
    }

    @Test func leadsWithCountsThenWhatDidNotHoldThenCostsAndWarningKinds() {
        let cv = Warning(rule: "cv-above-5-percent", message: "m")
        let text = FindingsText.text(
            report([
                result("D/g/a", claim: Claim(statement: "s", verdict: .held, evidence: "1.2×: slower; p10 1 ns")),
                result("D/g/b", claim: Claim(statement: "s", verdict: .didNotHold, evidence: "0.8×: faster; p10")),
                result("D/g/c", claim: Claim(statement: "s", verdict: .inconclusive, evidence: "1.0×: no difference")),
                result("Probe/sample/depth", median: 40_000, warnings: [cv]),
                result("X/y/z", warnings: [cv, Warning(rule: "severe-outliers", message: "m")]),
            ]))
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "Findings")
        #expect(lines.contains("  claims: 1 held, 1 did not hold, 1 inconclusive"))
        let didNotHold = lines.firstIndex { $0.contains("did not hold  D/g/b: 0.8×: faster") }
        let inconclusive = lines.firstIndex { $0.contains("inconclusive  D/g/c: 1.0×: no difference") }
        #expect(didNotHold != nil && inconclusive != nil && didNotHold! < inconclusive!)
        #expect(!text.contains("D/g/a:"), "held claims are counted, not listed")
        #expect(lines.contains("  Probe costs (median): Probe/sample/depth 40.0 µs"))
        #expect(lines.contains("    2 benchmarks: spread above 5% CV [cv-above-5-percent]"))
        #expect(lines.contains("    1 benchmark: severe outliers (beyond 3 × IQR) [severe-outliers]"))
    }

    /// Benchmarks whose processes disagree are named, with what a gate on them needs (#61).
    @Test func benchmarksWhoseProcessesDisagreeAreNamedWithWhatToDo() {
        let spread = Warning(rule: "process-spread-above-threshold", message: "m")
        let text = FindingsText.text(report([result("C/heap/push", warnings: [spread]), result("C/deque/append")]))
        let lines = text.split(separator: "\n").map(String.init)
        let group = lines.firstIndex { $0.hasSuffix("[process-spread-above-threshold]") }
        #expect(group != nil, "\(text)")
        if let group {
            #expect(
                lines[group + 1].hasPrefix(
                    "      C/heap/push: a wall-time gate on them needs a baseline of more processes")
            )
        }
    }

    @Test func aPlainReportHasNoFindingsBlock() {
        #expect(FindingsText.text(report([result("A/b/c")])) == "")
    }
}
