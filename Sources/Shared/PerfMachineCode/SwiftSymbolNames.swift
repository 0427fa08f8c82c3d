import Foundation
import PerfkitTools

/// What a Swift mangled name says about the function it names: a specialization, an unspecialized
/// generic entry point, its origin and a readable name. Read with the toolchain's `swift-demangle`
/// (the mangling is too rich to parse here); without it, from the mangling's suffixes only.
package struct SwiftSymbolNames {
    /// What one symbol is.
    package struct Traits: Sendable, Equatable {
        /// Made by the optimizer for concrete types (`Tg5`, `TG5`, `Ts5`, `Ti5`… in the mangling).
        package var isSpecialization: Bool
        /// Generic code that takes its types as metadata at run time: not a specialization, and its
        /// signature has a generic parameter (a generic function, or a method of a generic type).
        package var isUnspecializedGeneric: Bool
        /// The function a specialization was made from; nil when `symbol` is not a specialization.
        package var origin: String?
        /// `swift-demangle --simplified`'s name ("specialized total<A>(_:)"); the symbol itself
        /// when it could not be demangled.
        package var readableName: String
    }

    /// `swift-demangle`'s path; nil when it is missing (the mangled-suffix fallback is then used).
    package let demanglePath: String?
    private var cache: [String: Traits] = [:]

    package init(demanglePath: String? = ExternalTool.locateInToolchain("swift-demangle")) {
        self.demanglePath = demanglePath
    }

    /// The traits of each of `names`, demangled in at most three runs of swift-demangle.
    package mutating func traits(of names: [String]) -> [String: Traits] {
        let unknown = Array(Set(names.filter { cache[$0] == nil })).sorted()
        if !unknown.isEmpty {
            let computed = Self.read(unknown, demanglePath: demanglePath)
            cache.merge(computed) { _, new in new }
        }
        let wanted = Set(names)
        return cache.filter { wanted.contains($0.key) }
    }

    package mutating func traits(of name: String) -> Traits {
        traits(of: [name])[name] ?? Self.fallback(name)
    }

    private static func read(_ names: [String], demanglePath: String?) -> [String: Traits] {
        var result = Dictionary(uniqueKeysWithValues: names.map { ($0, fallback($0)) })
        let swiftNames = names.filter(isSwiftSymbol)
        guard let demanglePath, !swiftNames.isEmpty else { return result }
        let trees = run(demanglePath, ["--tree-only"] + swiftNames).map(parseTrees) ?? [:]
        let simplified = run(demanglePath, ["--simplified", "--compact"] + swiftNames)?
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let specialized = swiftNames.filter { trees[$0]?.isSpecialization ?? result[$0]?.isSpecialization ?? false }
        let origins =
            specialized.isEmpty
            ? nil
            : run(demanglePath, ["--strip-specialization", "--compact"] + specialized)?
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (index, name) in swiftNames.enumerated() {
            var traits = result[name] ?? fallback(name)
            if let tree = trees[name] {
                traits.isSpecialization = tree.isSpecialization
                traits.isUnspecializedGeneric = !tree.isSpecialization && tree.hasGenericParameter
            }
            if let simplified, index < simplified.count, !simplified[index].isEmpty {
                traits.readableName = simplified[index]
            }
            if let origins, let at = specialized.firstIndex(of: name), at < origins.count,
                origins[at].hasPrefix("$s")
            {
                traits.origin = origins[at]
            }
            result[name] = traits
        }
        return result
    }

    /// Swift's current mangling (`$s`, and `_$s` where the platform adds an underscore).
    package static func isSwiftSymbol(_ name: String) -> Bool { name.hasPrefix("$s") || name.hasPrefix("_$s") }

    /// From the mangling alone: a specialization marker (`T` + g/G/s/B/i, optional `q`/`a`, a pass
    /// digit), and a generic signature closing a function's type (`lF`, before any suffix).
    static func fallback(_ name: String) -> Traits {
        guard isSwiftSymbol(name) else {
            return Traits(isSpecialization: false, isUnspecializedGeneric: false, origin: nil, readableName: name)
        }
        let specialization = name.range(of: #"T[gGsBi]q?a?[0-9]"#, options: .regularExpression) != nil
        let generic = name.range(of: #"lF(Z)?(T[a-zA-Z][0-9a-z_]*)?$"#, options: .regularExpression) != nil
        return Traits(
            isSpecialization: specialization, isUnspecializedGeneric: !specialization && generic, origin: nil,
            readableName: name)
    }

    private struct Tree {
        var isSpecialization = false
        var hasGenericParameter = false
    }

    /// `--tree-only` prints "Demangling for <name>" then the node tree, two spaces per level; a
    /// specialization has a `…Specialization…` node (or `InlinedGenericFunction`) under `Global`.
    private static func parseTrees(_ output: String) -> [String: Tree] {
        var trees: [String: Tree] = [:]
        var current: String?
        for line in output.split(separator: "\n") {
            if line.hasPrefix("Demangling for ") {
                current = String(line.dropFirst("Demangling for ".count))
                trees[current!] = Tree()
                continue
            }
            guard let name = current, let kind = line.range(of: "kind=") else { continue }
            let node = line[kind.upperBound...].prefix { $0 != "," }
            let depth = line.distance(from: line.startIndex, to: kind.lowerBound) / 2
            if depth == 1,
                node.contains("GenericSpecialization") || node.contains("GenericPartialSpecialization")
                    || node == "InlinedGenericFunction"
            {
                trees[name]?.isSpecialization = true
            }
            if node == "DependentGenericParamType" { trees[name]?.hasGenericParameter = true }
        }
        return trees
    }

    private static func run(_ tool: String, _ arguments: [String]) -> String? {
        (try? ExternalTool.output(of: tool, arguments)).map { String(decoding: $0, as: UTF8.self) }
    }
}
