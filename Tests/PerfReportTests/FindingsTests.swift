import Testing

@testable import PerfReport

@Suite struct FindingsTests {
    /// A report whose benchmarks are `ReportFixtures`' one result under other ids, with `change`
    /// applied to each.
    static func report(_ changes: [(String, (inout BenchmarkResult) -> Void)]) -> Report {
        var report = ReportFixtures.report()
        let template = report.benchmarks[0]
        report.benchmarks = changes.map { id, change in
            var result = template
            let parts = id.split(separator: "/").map(String.init)
            (result.id, result.suite, result.group, result.name) = (id, parts[0], parts[1], parts[2])
            result.parameter = nil
            result.claim = nil
            result.warnings = []
            result.counters = [:]
            change(&result)
            return result
        }
        return report
    }

    static func claim(_ verdict: Claim.Verdict, _ evidence: String) -> (inout BenchmarkResult) -> Void {
        { $0.claim = Claim(statement: "s", verdict: verdict, evidence: evidence) }
    }

    @Test func claimsThatDidNotHoldComeFirstThenOpenOnesThenHeld() {
        let findings = Findings(
            Self.report([
                ("S/g/a", Self.claim(.held, "1.20× [1.10×–1.30×]: significantly slower; p10 5 ns")),
                ("S/g/b", Self.claim(.inconclusive, "0.99×: no meaningful difference")),
                ("S/g/c", Self.claim(.didNotHold, "compiled as inlined, not vtable; median 1 ns")),
                ("S/g/d", { _ in }),
                ("S/g/e", Self.claim(.held, "held too")),
            ]))
        #expect(findings.claims.map(\.id) == ["S/g/c", "S/g/b", "S/g/a", "S/g/e"])
        #expect(
            findings.claims.map(\.summary) == [
                "compiled as inlined, not vtable", "0.99×: no meaningful difference",
                "1.20× [1.10×–1.30×]: significantly slower",
                "held too",
            ])
        #expect(findings.count(.held) == 2)
        #expect(findings.count(.didNotHold) == 1)
        #expect(findings.count(.inconclusive) == 1)
    }

    @Test func ceilingSharesProbeCostsAndWarningGroups() {
        let findings = Findings(
            Self.report([
                (
                    "PixelArt/scale/x2",
                    {
                        $0.counters = ["percentOfMemcpyCeiling": 85, "percentOfMemsetCeiling": 22, "other": 1]
                        $0.warnings = [
                            Warning(rule: "cv-above-5-percent", message: "m"),
                            Warning(rule: "severe-outliers", message: "m"),
                        ]
                    }
                ),
                (
                    "Probe/sample/stack-depth",
                    {
                        $0.warnings = [Warning(rule: "cv-above-5-percent", message: "m")]
                        $0.counters = ["sampledThreadMicrosecondsPerSample": 7.5]
                    }
                ),
                ("Probe/ping/serial-queue", { _ in }),
                ("Probe/startup/mark", { _ in }),
                ("Mine/own/rule", { $0.warnings = [Warning(rule: "my-rule", message: "m")] }),
            ]))
        #expect(findings.ceilingShares.map(\.id) == ["PixelArt/scale/x2"])
        #expect(findings.ceilingShares.first?.percentOf == ["Memcpy": 85, "Memset": 22])
        #expect(findings.ceilingShares.first?.bytesPerSecond != nil)
        #expect(findings.probeCosts.map(\.id) == ["Probe/sample/stack-depth", "Probe/ping/serial-queue"])
        #expect(findings.probeCosts.map(\.sampledThreadNanoseconds) == [7500, nil])
        #expect(findings.warningGroups.map(\.rule) == ["cv-above-5-percent", "severe-outliers", "my-rule"])
        #expect(findings.warningGroups.first?.benchmarkIDs == ["PixelArt/scale/x2", "Probe/sample/stack-depth"])
        #expect(findings.warningGroups.first?.title == "spread above 5% CV")
        #expect(findings.warningGroups.last?.title == "my-rule")
    }

    @Test func aReportWithNothingToSayHasNoFindings() {
        #expect(Findings(Self.report([("S/g/a", { _ in })])).isEmpty)
    }
}
