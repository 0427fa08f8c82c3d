import PerfMachineCode
import PerfReport

extension CompiledForm.Kind {
    /// Orders forms from static to dynamic, to combine the forms of two functions.
    var dynamism: Int {
        switch self {
        case .unknown: -1
        case .inlined: 0
        case .direct: 1
        case .indirect: 2
        case .witnessTable: 3
        case .vtable: 4
        }
    }
}

extension DispatchCase {
    func compiledForm(using disassembler: ExecutableDisassembler?) -> CompiledForm {
        guard let disassembler else {
            guard Architecture.current != nil else {
                return .unavailable(symbol: kernel, architecture: Architecture.currentName)
            }
            return CompiledForm(
                kind: .unknown, symbol: kernel, evidence: ["no disassembler (llvm-objdump or .symtab missing)"])
        }
        var form = disassembler.classify(functionPrefix: kernel, target: target)
        guard let inner, !form.isUnavailable else { return form }
        let innerForm = disassembler.classify(functionPrefix: inner.function, target: inner.target)
        // Half a reading is no reading: the claim may rest on the calls inside `update`.
        if innerForm.isUnavailable { return innerForm }
        guard innerForm.kind != .unknown else {
            form.evidence.append("update has no body of its own in the binary (inlined into its callers)")
            return form
        }
        if innerDecides {
            return CompiledForm(
                kind: innerForm.kind, symbol: innerForm.symbol,
                evidence: innerForm.evidence + ["the kernel's own call to update: \(form.kind.rawValue)"]
                    + form.evidence)
        }
        if innerForm.kind.dynamism > form.kind.dynamism { form.kind = innerForm.kind }
        form.evidence += ["inside update (\(innerForm.symbol)): \(innerForm.kind.rawValue)"] + innerForm.evidence
        return form
    }
}

/// Sets the compiled form and the claim of every dispatch result in `results`.
func analyzeDispatch(_ results: inout [BenchmarkResult], disassembler: ExecutableDisassembler?) {
    for dispatchCase in dispatchCases {
        guard let index = results.firstIndex(where: { $0.id == dispatchCase.path }) else { continue }
        results[index].compiledForm = dispatchCase.compiledForm(using: disassembler)
    }
    let classified = results
    for dispatchCase in dispatchCases {
        guard let index = results.firstIndex(where: { $0.id == dispatchCase.path }) else { continue }
        results[index].claim = dispatchCase.claim(for: results[index], in: classified)
    }
}
