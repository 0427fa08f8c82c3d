import Harness
import PerfReport
import Testing

@testable import DispatchBench
@testable import PerfMachineCode

@Suite struct DispatchClaimTests {
    private func form(_ kind: CompiledForm.Kind) -> CompiledForm { CompiledForm(kind: kind, symbol: "k", evidence: []) }

    private func results(_ kind: CompiledForm.Kind, median: Double, baseline: Double) -> [BenchmarkResult] {
        var subject = LocalDriver.result("DispatchBench/dispatch/open-no-override", median: median, halfWidth: 0.1)
        subject.compiledForm = form(kind)
        let final = LocalDriver.result("DispatchBench/dispatch/final-class", median: baseline, halfWidth: 0.1)
        return [subject, final]
    }

    private var openCase: DispatchCase { dispatchCases.first { $0.name == "open-no-override" }! }

    @Test func heldNeedsTheFormAndASignificantDifference() {
        let all = results(.vtable, median: 3, baseline: 1)
        #expect(openCase.claim(for: all[0], in: all).verdict == .held)
    }

    @Test func overlappingIntervalsAreInconclusive() {
        let all = results(.vtable, median: 1.1, baseline: 1)
        let claim = openCase.claim(for: all[0], in: all)
        #expect(claim.verdict == .inconclusive)
        #expect(claim.evidence.contains("overlap"))
    }

    @Test func devirtualisedCallDoesNotHoldAndSaysSo() {
        let all = results(.inlined, median: 3, baseline: 1)
        let claim = openCase.claim(for: all[0], in: all)
        #expect(claim.verdict == .didNotHold)
        #expect(claim.evidence.contains("devirtualised"))
    }

    @Test func oppositeSignificantDifferenceDoesNotHold() {
        let all = results(.vtable, median: 1, baseline: 3)
        #expect(openCase.claim(for: all[0], in: all).verdict == .didNotHold)
    }

    @Test func unknownFormIsInconclusive() {
        let all = results(.unknown, median: 3, baseline: 1)
        #expect(openCase.claim(for: all[0], in: all).verdict == .inconclusive)
    }

    /// `final class` vs the plain class: when whole-module optimisation devirtualised the plain form
    /// too, the claim does not hold whatever the clock said, and the evidence says why.
    @Test func fasterClaimAgainstADevirtualisedBaselineDoesNotHold() {
        let finalClass = dispatchCases.first { $0.name == "particle-final-class" }!
        // (baseline form, median, half-width of the interval, verdict); the baseline is 1 ± 0.01.
        for (kind, median, halfWidth, verdict) in [
            (CompiledForm.Kind.inlined, 0.5, 0.01, Claim.Verdict.didNotHold), (.inlined, 1, 0.01, .didNotHold),
            (.inlined, 1, 0.5, .didNotHold), (.vtable, 0.5, 0.01, .held),
            // Against a real vtable call the clock decides: the same time is no evidence either way.
            (.vtable, 1, 0.01, .inconclusive), (.vtable, 1, 0.5, .inconclusive), (.vtable, 2, 0.01, .didNotHold),
        ] {
            var subject = LocalDriver.result(
                "DispatchBench/dispatch/particle-final-class", median: median, halfWidth: halfWidth)
            subject.compiledForm = form(.inlined)
            var plain = LocalDriver.result("DispatchBench/dispatch/particle-plain", median: 1, halfWidth: 0.01)
            plain.compiledForm = form(kind)
            let claim = finalClass.claim(for: subject, in: [subject, plain])
            #expect(claim.verdict == verdict, "baseline \(kind), median \(median): \(claim.evidence)")
            #expect(claim.evidence.contains("compiled as inlined too") == (kind == .inlined))
        }
    }

    /// Every dispatch benchmark runs, and analyze gives each a claim and a compiled form.
    @Test func suiteRunsAndAnalyses() throws {
        let results = try LocalDriver.run(dispatchBenchSuite, iterations: 100, samples: 3) {
            $0.group == "dispatch"
        }
        #expect(results.count == dispatchCases.count)
        for result in results {
            #expect(result.claim != nil, "\(result.id) has no claim")
            #expect(
                result.compiledForm.map { $0.kind != .unknown } == true,
                "\(result.id): \(String(describing: result.compiledForm))")
        }
        #expect(Set(results.map(\.id)).count == results.count)
    }
}
