import PerfReport

/// Which functions grew most between the base's and the new build's ``FunctionProfile`` of one
/// benchmark: the "where" of a count regression.
package enum FunctionGrowth {
    /// Functions listed at most.
    package static let listed = 5
    /// A function is listed only if its exclusive instructions per operation grew by more than
    /// this share of the base's total and by at least one instruction: below, a profile is flat.
    package static let minimumShare = 0.005

    /// The functions whose exclusive instructions per operation grew most, largest first; none
    /// when no function grew beyond ``minimumShare`` (no culprit is invented for a flat profile).
    package static func differential(base: FunctionProfile, current: FunctionProfile) -> FunctionDifferential {
        let baseByName = Dictionary(base.functions.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let currentByName = Dictionary(
            current.functions.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let baseTotal = total(base)
        let floor = max(1, baseTotal * minimumShare)
        let changes = Set(baseByName.keys).union(currentByName.keys).map { name in
            FunctionDifferential.Change(
                name: name, symbol: currentByName[name]?.symbol ?? baseByName[name]?.symbol,
                baseExclusive: baseByName[name]?.exclusive,
                currentExclusive: currentByName[name]?.exclusive,
                baseInclusive: baseByName[name]?.inclusive, currentInclusive: currentByName[name]?.inclusive)
        }
        // Only a function kept on the new side can be said to have grown: one kept on the base side
        // alone fell below the new profile's kept functions, so it shrank or stayed.
        let grown = changes.filter { $0.currentExclusive != nil && $0.exclusiveGrowth >= floor }
            .sorted { ($0.exclusiveGrowth, $1.name) > ($1.exclusiveGrowth, $0.name) }
        return FunctionDifferential(
            grown: Array(grown.prefix(listed)), baseTotal: baseTotal, currentTotal: total(current))
    }

    /// Every instruction of the profile per operation: the kept functions' own and the rest's.
    static func total(_ profile: FunctionProfile) -> Double {
        profile.functions.reduce(profile.omittedExclusive) { $0 + $1.exclusive }
    }

    /// The comparison with a ``FunctionDifferential`` on every regressed count entry whose both
    /// sides carry a profile.
    package static func attach(to comparison: Comparison, baseline: Report, current: Report) -> Comparison {
        let baseByID = Dictionary(baseline.benchmarks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let currentByID = Dictionary(current.benchmarks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var comparison = comparison
        for index in comparison.entries.indices {
            let entry = comparison.entries[index]
            guard entry.verdict == .regressed, entry.metric == .instructions,
                let base = baseByID[entry.id]?.functionProfile, let new = currentByID[entry.id]?.functionProfile
            else { continue }
            comparison.entries[index].functionDifferential = differential(base: base, current: new)
        }
        return comparison
    }
}
