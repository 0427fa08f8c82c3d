import Foundation
import PerfMachineCode
import PerfReport

/// The "why" of a regression whose profiles say where it grew: what changed in those functions'
/// machine code between the baseline's executable and this one (PerfMachineCode), a line each on
/// the differential, or one note saying why the code was not compared.
enum CompiledCodeExplanation {
    /// Grown Swift functions compared per regressed benchmark, from the top of the list; with
    /// nothing grown, the current profile's largest by exclusive instructions instead.
    static let comparedFunctions = 3

    /// The differentials a comparison entry carries, and the profiles each was computed from.
    enum Kind: CaseIterable {
        case instructions, sampledTime

        var differential: WritableKeyPath<ComparisonEntry, FunctionDifferential?> {
            self == .instructions ? \.functionDifferential : \.timeDifferential
        }
        var profile: KeyPath<BenchmarkResult, FunctionProfile?> {
            self == .instructions ? \.functionProfile : \.timeProfile
        }
    }

    /// `comparison` with the compiled-code lines on every differential of `kinds` it carries.
    /// `baseBinary` nil: each differential notes how to get them; `current` gives the flat
    /// profiles' functions.
    static func attach(
        to comparison: Comparison, current: Report, baseBinary: String?, newBinary: String,
        kinds: [Kind] = Kind.allCases
    ) -> Comparison {
        let carried = kinds.filter { kind in comparison.entries.contains { $0[keyPath: kind.differential] != nil } }
        guard !carried.isEmpty else { return comparison }
        var comparison = comparison
        func noteEveryDifferential(_ note: String) {
            for kind in carried {
                for index in comparison.entries.indices
                where comparison.entries[index][keyPath: kind.differential] != nil {
                    comparison.entries[index][keyPath: kind.differential]?.compiledCodeNotes = [note]
                }
            }
        }
        guard let baseBinary else {
            noteEveryDifferential(ComparisonWording.compiledCodeNotCompared(reason: nil))
            return comparison
        }
        var comparer: CompiledCodeComparer
        do {
            comparer = try CompiledCodeComparer(basePath: baseBinary, newPath: newBinary)
        } catch {
            noteEveryDifferential(ComparisonWording.compiledCodeNotCompared(reason: error.message))
            return comparison
        }
        for kind in carried {
            let profiles = Dictionary(
                current.benchmarks.compactMap { result in result[keyPath: kind.profile].map { (result.id, $0) } },
                uniquingKeysWith: { first, _ in first })
            for index in comparison.entries.indices {
                guard var differential = comparison.entries[index][keyPath: kind.differential] else { continue }
                explain(&differential, profile: profiles[comparison.entries[index].id], with: &comparer)
                comparison.entries[index][keyPath: kind.differential] = differential
            }
        }
        return comparison
    }

    /// How many callers up a library function's growth is traced to code the executable defines.
    static let callerDepth = 2

    /// The compiled-code lines of `name`'s callers in the new executable (named: "caller: change"),
    /// going up past callers the base lacks (new code), at most ``callerDepth`` levels.
    private static func callers(
        of name: String, in profile: FunctionProfile, with comparer: inout CompiledCodeComparer
    ) -> [String] {
        var lines: [String] = []
        var level = profile.functions.indices.filter { profile.functions[$0].name == name }
        var seen = Set(level)
        for _ in 0..<callerDepth {
            let callers = Set(level.flatMap { callee in profile.edges.filter { $0.callee == callee }.map(\.caller) })
                .subtracting(seen).sorted()
            var next: [Int] = []
            for caller in callers {
                seen.insert(caller)
                guard let symbol = profile.functions[caller].symbol, comparer.new.hasFunction(symbol) else { continue }
                let result = comparer.compare(newFunction: symbol)
                lines += result.lines
                // New code (absent from the base): its own callers say where it came from.
                if !comparer.base.hasFunction(symbol) { next.append(caller) }
            }
            level = next
            if level.isEmpty { break }
        }
        return lines
    }

    private static func explain(
        _ differential: inout FunctionDifferential, profile: FunctionProfile?, with comparer: inout CompiledCodeComparer
    ) {
        // Swift functions only: a runtime or C function (swift_beginAccess, malloc) has no mangled
        // symbol, and its growth is explained by the Swift code that calls it more.
        var compared = 0
        for index in differential.grown.indices where compared < comparedFunctions {
            guard let symbol = differential.grown[index].symbol else { continue }
            if comparer.new.hasFunction(symbol) {
                let result = comparer.compare(newFunction: symbol)
                differential.grown[index].compiledCode = result.changes.map(CompiledCodeComparison.wording(of:))
            } else if let profile {
                // A library's function (String.lowercased) runs more because code here calls it
                // more: what changed in its callers in the executable, each line naming the caller.
                let lines = callers(of: differential.grown[index].name, in: profile, with: &comparer)
                guard !lines.isEmpty else { continue }
                differential.grown[index].compiledCode = lines
            } else {
                continue
            }
            compared += 1
        }
        guard differential.grown.isEmpty, let profile else { return }
        // Nothing grew on its own: is the largest functions' code the same? Then the cause is not
        // in the code (layout, data or the machine), and saying so beats naming a culprit.
        // The executable's own: a library's function (the runtime's, libswiftCore's) is in neither binary.
        let largest = profile.functions.filter { $0.symbol.map(comparer.new.hasFunction) ?? false }
            .sorted { $0.exclusive > $1.exclusive }.prefix(comparedFunctions)
        var notes: [String] = []
        var unchanged: [String] = []
        for function in largest {
            let result = comparer.compare(newFunction: function.symbol!)
            if result.changes == [.noCodeChange] {
                unchanged.append(function.name)
            } else {
                notes += result.lines
            }
        }
        if !unchanged.isEmpty { notes.insert(ComparisonWording.noCodeChange(in: unchanged), at: 0) }
        differential.compiledCodeNotes = notes.isEmpty ? nil : notes
    }
}
