import Harness
import PerfReport

/// One dispatch benchmark: the claim it tests, how the call is expected to be compiled for the
/// claim to hold, which time difference would support it, and where to find the kernel.
struct DispatchCase: Sendable {
    enum Timing: Sendable {
        /// This case should be significantly slower / faster than the named case in the same group.
        case slowerThan(String)
        case fasterThan(String)
    }

    var group: String
    var name: String
    var statement: String
    var expectedForms: Set<CompiledForm.Kind>
    /// Mangled-name prefix of the kernel function.
    var kernel: String
    var target: CallTarget
    /// A second function to classify (ParticleModel's `update`, for the calls inside it). Its form
    /// is combined with the kernel's (the more dynamic one wins), or replaces it when
    /// `innerDecides` (the private form's claim is only about the calls inside `update`).
    var inner: (function: String, target: CallTarget)? = nil
    var innerDecides = false
    var timing: Timing? = nil
    var benchmark: Benchmark

    var path: String { "DispatchBench/\(group)/\(name)" }

    static let staticForms: Set<CompiledForm.Kind> = [.inlined, .direct]
}

extension DispatchCase {
    /// Decides the claim from the compiled form (already set on `result`) and the timing against
    /// the baseline case.
    func claim(for result: BenchmarkResult, in results: [BenchmarkResult]) -> Claim {
        let form = result.compiledForm?.kind ?? .unknown
        let formHeld: Bool? = form == .unknown ? nil : expectedForms.contains(form)
        let expected = expectedForms.map(\.rawValue).sorted().joined(separator: " or ")
        let formClause =
            switch formHeld {
            case nil: CompiledForm.unknownClause(result.compiledForm)
            case true?: "compiled as \(form.rawValue), as claimed"
            case false?: "compiled as \(form.rawValue), not \(expected)\(devirtualisedNote(form))"
            }
        var timingClause: String?
        var staticClause: String?
        var timingHeld: Bool?
        if let timing {
            let (baselineName, wanted): (String, TimingDifference.Direction) =
                switch timing {
                case .slowerThan(let name): (name, .higher)
                case .fasterThan(let name): (name, .lower)
                }
            if let baseline = results.first(where: { $0.group == group && $0.name == baselineName }) {
                let difference = TimingDifference(result, comparedTo: baseline)
                let observed = difference.direction
                let baselineForm = baseline.compiledForm.map { " (compiled as \($0.kind.rawValue))" } ?? ""
                timingClause = difference.sentence(result, vs: baselineName + baselineForm, baseline)
                timingHeld = observed == wanted ? true : (observed == .notSignificant ? nil : false)
                // A "faster" claim rests on the baseline's dynamic call. If the optimizer made that call
                // static too, the binary has no dispatch for this form to save, and a time difference
                // between the two is noise or layout, not dispatch: the binary decides, not the clock.
                if case .fasterThan = timing, formHeld == true, let kind = baseline.compiledForm?.kind,
                    Self.staticForms.contains(kind)
                {
                    staticClause =
                        "\(baselineName) was compiled as \(kind.rawValue) too, so there is no dynamic call here for this form to remove"
                }
            } else {
                timingClause = "\(baselineName) was not run, so no comparison; median \(Describe.median(result))"
            }
        } else {
            timingClause = "median \(Describe.median(result))"
        }
        let verdict: Claim.Verdict
        if formHeld == false || timingHeld == false || staticClause != nil {
            verdict = .didNotHold
        } else if formHeld == true && (timing == nil || timingHeld == true) {
            verdict = .held
        } else {
            verdict = .inconclusive
        }
        // The clause that decided the verdict comes first: a report's findings show only that one.
        var evidence: [String]
        if let staticClause {
            evidence = [staticClause, formClause] + (timingClause.map { [$0] } ?? [])
        } else if formHeld != true || timing == nil {
            evidence = [formClause] + (timingClause.map { [$0] } ?? [])
        } else {
            evidence = (timingClause.map { [$0] } ?? []) + [formClause]
        }
        evidence.append(BuildConfiguration.note)
        return Claim(statement: statement, verdict: verdict, evidence: evidence.joined(separator: "; "))
    }

    private func devirtualisedNote(_ form: CompiledForm.Kind) -> String {
        let dynamic: Set<CompiledForm.Kind> = [.vtable, .witnessTable, .indirect]
        if !expectedForms.isDisjoint(with: dynamic), Self.staticForms.contains(form) {
            return " — the optimizer devirtualised a call meant to be dynamic"
        }
        if !expectedForms.isDisjoint(with: Self.staticForms), dynamic.contains(form) {
            return " — the call stayed dynamic"
        }
        return ""
    }
}
