/// Which rounds of a run visit which benchmark, and what each visit measures.
///
/// A run has `configuration.rounds` rounds, or more when a selected benchmark wants a fresh visit
/// for every sample: then as many as that benchmark's samples. One-visit benchmarks are measured
/// in the first round; every other benchmark's visits are spread evenly over the run's rounds, the
/// first in round 0: `configuration.rounds` visits for an interleaved one, each with its share of
/// the samples, and one visit per sample for an every-sample one.
struct VisitPlan {
    let rounds: Int
    private let schedulings: [Benchmark.Scheduling]
    private let configuration: RunConfiguration
    /// Visits of an interleaved benchmark (the configuration's rounds, capped by the samples).
    private let interleavedVisits: Int
    private let oneVisitEach: Bool

    init(schedulings: [Benchmark.Scheduling], configuration: RunConfiguration, oneVisitEach: Bool) {
        self.schedulings = schedulings
        self.configuration = configuration
        self.oneVisitEach = oneVisitEach
        interleavedVisits = oneVisitEach ? 1 : max(1, min(configuration.rounds, configuration.samples))
        var rounds = interleavedVisits
        if !oneVisitEach {
            for case .everySampleAFreshVisit(let factor) in schedulings {
                rounds = max(rounds, Self.scaled(configuration, by: factor).samples)
            }
        }
        self.rounds = rounds
    }

    /// The visit benchmark `index` gets in `round`, or nil when that round passes it by.
    func visit(case index: Int, round: Int) -> RunConfiguration.Visit? {
        guard round >= 0, round < rounds else { return nil }
        switch schedulings[index] {
        case .oneVisit:
            return round == 0 ? configuration.visit(round: 0, of: 1) : nil
        case .interleaved:
            return spread(visits: interleavedVisits, round: round).map {
                configuration.visit(round: $0, of: interleavedVisits)
            }
        case .everySampleAFreshVisit(let factor):
            // Under callgrind the counts are deterministic: more samples would only take longer.
            if oneVisitEach { return round == 0 ? configuration.visit(round: 0, of: 1) : nil }
            let own = Self.scaled(configuration, by: factor)
            return spread(visits: own.samples, round: round).map { own.visit(round: $0, of: own.samples) }
        }
    }

    /// Which of `visits` visits, spread evenly over the rounds, falls in `round` (visit k is in
    /// round ⌊k·rounds/visits⌋), or nil.
    private func spread(visits: Int, round: Int) -> Int? {
        let visit = (round * visits + rounds - 1) / rounds
        return visit < visits && visit * rounds / visits == round ? visit : nil
    }

    /// The configuration of a benchmark that takes `factor` times the samples, up to the
    /// configuration's `maximumFreshVisits`, with the time budget to match: each sample keeps the
    /// budget of one configured sample.
    private static func scaled(_ configuration: RunConfiguration, by factor: Int) -> RunConfiguration {
        var scaled = configuration
        let wanted = configuration.samples * max(1, factor)
        scaled.samples = min(wanted, configuration.maximumFreshVisits ?? wanted)
        scaled.minimumSamples = min(configuration.minimumSamples * max(1, factor), scaled.samples)
        scaled.timeBudgetSeconds *= Double(scaled.samples) / Double(max(1, configuration.samples))
        return scaled
    }
}
