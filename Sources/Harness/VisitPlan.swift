/// Which rounds of a run visit which benchmark, and what each visit measures.
///
/// A run has `configuration.rounds` rounds, or as many as samples when a selected benchmark wants
/// a fresh visit for every sample. One-visit benchmarks are measured in the first round; the
/// interleaved ones in `configuration.rounds` rounds spread evenly over the run, each with its
/// share of the samples; the every-sample ones in every round, one sample each.
struct VisitPlan {
    let rounds: Int
    private let schedulings: [Benchmark.Scheduling]
    private let configuration: RunConfiguration
    /// Visits of an interleaved benchmark (the configuration's rounds, capped by the samples).
    private let interleavedVisits: Int

    init(schedulings: [Benchmark.Scheduling], configuration: RunConfiguration, oneVisitEach: Bool) {
        self.schedulings = schedulings
        self.configuration = configuration
        interleavedVisits = oneVisitEach ? 1 : max(1, min(configuration.rounds, configuration.samples))
        let wantsEverySample = !oneVisitEach && schedulings.contains(.everySampleAFreshVisit)
        rounds = wantsEverySample ? max(interleavedVisits, configuration.samples) : interleavedVisits
    }

    /// The visit benchmark `index` gets in `round`, or nil when that round passes it by.
    func visit(case index: Int, round: Int) -> RunConfiguration.Visit? {
        guard round >= 0, round < rounds else { return nil }
        switch schedulings[index] {
        case .oneVisit:
            return round == 0 ? configuration.visit(round: 0, of: 1) : nil
        case .everySampleAFreshVisit:
            return configuration.visit(round: round, of: rounds)
        case .interleaved:
            // The k-th visit is in round ⌊k·rounds/visits⌋: evenly spread, the first in round 0.
            let visit = (round * interleavedVisits + rounds - 1) / rounds
            guard visit < interleavedVisits, visit * rounds / interleavedVisits == round else { return nil }
            return configuration.visit(round: visit, of: interleavedVisits)
        }
    }
}
