import ELFSymbols
import Foundation
import PerfMachineCode
import PerfReport

extension ExecutableDisassembler {
    /// Classifies the calls matching `target` in every function whose mangled name starts with
    /// `functionPrefix` (the function and the optimizer's copies of it).
    public func classify(functionPrefix: String, target: CallTarget) -> CompiledForm {
        guard architecture != nil else { return .unavailable(symbol: functionPrefix, architecture: machineName) }
        do {
            let names = symbols.functions(withPrefix: functionPrefix).filter { $0.size > 0 }.map(\.name)
            guard !names.isEmpty else {
                return CompiledForm(
                    kind: .unknown, symbol: functionPrefix,
                    evidence: ["no function symbol starts with \(functionPrefix)"])
            }
            let functions = try disassemble(names)
            return CompiledFormClassifier.classify(functions: functions, target: target) { name in
                (try? self.disassemble([name])) ?? []
            }
        } catch {
            return CompiledForm(kind: .unknown, symbol: functionPrefix, evidence: ["\(error)"])
        }
    }
}
