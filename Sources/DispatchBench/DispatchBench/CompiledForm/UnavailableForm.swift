import Foundation
import PerfMachineCode
import PerfReport

extension CompiledForm {
    /// What claims and forms say when the machine code cannot be read here: an architecture the
    /// classifier does not read, or a listing it does not understand. Worded here only.
    static let unavailablePhrase = "compiled form unavailable on this architecture"

    /// A form that makes no claim about the code: `.unknown`, with the reason after the phrase.
    static func unavailable(symbol: String, because reason: String) -> CompiledForm {
        CompiledForm(kind: .unknown, symbol: symbol, evidence: ["\(unavailablePhrase) (\(reason))"])
    }

    /// For an architecture other than x86-64 and aarch64.
    static func unavailable(symbol: String, architecture name: String) -> CompiledForm {
        unavailable(
            symbol: symbol, because: "\(name) machine code; the classifier reads x86-64 and aarch64 only")
    }

    var isUnavailable: Bool { kind == .unknown && evidence.first?.hasPrefix(Self.unavailablePhrase) == true }

    /// The clause a claim gives when the form is `.unknown` (or missing): why it could not be read.
    static func unknownClause(_ form: CompiledForm?) -> String {
        if let form, form.isUnavailable, let reason = form.evidence.first { return reason }
        return "compiled form could not be determined (\(form?.evidence.first ?? "no classifier"))"
    }
}
