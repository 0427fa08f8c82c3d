import PerfReport
import PerfStatistics

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

    /// The z of two-sided intervals that hold together at 95% for `count` functions (Bonferroni):
    /// each function compared is one more chance to list one by chance.
    static func z95(comparing count: Int) -> Double {
        let tail = 0.025 / Double(max(count, 1))
        var low = 0.0
        var high = 40.0
        for _ in 0..<60 {
            let middle = (low + high) / 2
            if MannWhitneyU.normalSurvival(middle) > tail { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }

    /// The functions whose share of the sampled CPU time grew beyond its interval (two proportions,
    /// from each side's sample count; 95% for all the functions compared together) and whose time
    /// per operation grew by at least ``minimumShare`` of the base's total, largest first; nil
    /// unless both profiles are sampled. A machine that slows every function alike moves no share,
    /// so it is given no culprit.
    package static func timeDifferential(base: FunctionProfile, current: FunctionProfile) -> FunctionDifferential? {
        guard let baseSamples = base.samples, let currentSamples = current.samples, baseSamples > 0,
            currentSamples > 0
        else { return nil }
        let baseTotal = base.total
        let currentTotal = current.total
        guard baseTotal > 0, currentTotal > 0 else { return nil }
        let baseByName = Dictionary(base.functions.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let floor = baseTotal * minimumShare
        // A function the base left out had at most its smallest kept function's time: counted at
        // that, so a function that merely crossed the kept line is not taken for one that grew.
        let leftOut = min(base.omittedExclusive, base.functions.map(\.exclusive).min() ?? base.omittedExclusive)
        let z = z95(comparing: current.functions.count)
        var grown: [FunctionDifferential.Change] = []
        for function in current.functions {
            let old = baseByName[function.name]
            let baseExclusive = old?.exclusive ?? leftOut
            let baseShare = baseExclusive / baseTotal
            let currentShare = function.exclusive / currentTotal
            let baseVariance = baseShare * (1 - baseShare) / Double(baseSamples)
            let currentVariance = currentShare * (1 - currentShare) / Double(currentSamples)
            guard currentShare - baseShare > z * (baseVariance + currentVariance).squareRoot() else { continue }
            var change = FunctionDifferential.Change(
                name: function.name, symbol: function.symbol ?? old?.symbol, baseExclusive: old?.exclusive,
                currentExclusive: function.exclusive, baseInclusive: old?.inclusive,
                currentInclusive: function.inclusive)
            guard function.exclusive - baseExclusive >= floor else { continue }
            // The growth in ns per operation, each side's share uncertain by its samples.
            let spread =
                z
                * (currentTotal * currentTotal * currentVariance + baseTotal * baseTotal * baseVariance).squareRoot()
            change.growthLow = CallgrindCallGraph.rounded(change.exclusiveGrowth - spread)
            change.growthHigh = CallgrindCallGraph.rounded(change.exclusiveGrowth + spread)
            grown.append(change)
        }
        grown.sort { ($0.exclusiveGrowth, $1.name) > ($1.exclusiveGrowth, $0.name) }
        var differential = FunctionDifferential(
            grown: Array(grown.prefix(listed)), baseTotal: baseTotal, currentTotal: currentTotal)
        differential.baseSamples = baseSamples
        differential.currentSamples = currentSamples
        return differential
    }

    /// Every instruction of the profile per operation: the kept functions' own and the rest's.
    static func total(_ profile: FunctionProfile) -> Double { profile.total }

    /// The comparison with a ``FunctionDifferential`` on every regressed count entry whose both
    /// sides carry a profile.
    package static func attach(to comparison: Comparison, baseline: Report, current: Report) -> Comparison {
        attach(
            to: comparison, baseline: baseline, current: current, metrics: [.instructions], profile: \.functionProfile,
            differential: \.functionDifferential, by: { differential(base: $0, current: $1) })
    }

    /// The comparison with a sampled ``timeDifferential(base:current:)`` on every regressed time
    /// entry whose both sides carry a time profile.
    package static func attachTime(to comparison: Comparison, baseline: Report, current: Report) -> Comparison {
        attach(
            to: comparison, baseline: baseline, current: current, metrics: [.wallTime, .cpuTime],
            profile: \.timeProfile, differential: \.timeDifferential, by: timeDifferential)
    }

    /// `by`'s differential of each regressed entry of one of `metrics` whose both sides carry `profile`.
    private static func attach(
        to comparison: Comparison, baseline: Report, current: Report, metrics: Set<Metric>,
        profile: KeyPath<BenchmarkResult, FunctionProfile?>,
        differential: WritableKeyPath<ComparisonEntry, FunctionDifferential?>,
        by compare: (FunctionProfile, FunctionProfile) -> FunctionDifferential?
    ) -> Comparison {
        let baseByID = Dictionary(baseline.benchmarks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let currentByID = Dictionary(current.benchmarks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var comparison = comparison
        for index in comparison.entries.indices {
            let entry = comparison.entries[index]
            guard entry.verdict == .regressed, metrics.contains(entry.metric),
                let base = baseByID[entry.id]?[keyPath: profile], let new = currentByID[entry.id]?[keyPath: profile]
            else { continue }
            comparison.entries[index][keyPath: differential] = compare(base, new)
        }
        return comparison
    }
}
