/// What a reader opens a report for, drawn from it as plain data: the claims' verdicts, what changed
/// against the baseline, the rounds in which the machine moved, how close the memory-bound
/// benchmarks come to the machine's ceiling, the costs Probe adds to a service, and the warnings
/// grouped by kind. The HTML page and the terminal lead with it; the tables follow.
public struct Findings: Sendable, Equatable {
    /// One claim and the clause of its evidence that decided it.
    public struct ClaimLine: Sendable, Equatable {
        public var id: String
        public var statement: String
        public var verdict: Claim.Verdict
        /// The evidence up to its first "; " (the ratio or count and what it means); the rest, the
        /// quantiles and medians behind it, stays with the benchmark.
        public var summary: String
    }

    /// A benchmark that reports its speed as a share of the machine's memory ceiling (counters named
    /// `percentOf…Ceiling`, 100 = as fast as that operation on the same bytes).
    public struct CeilingShare: Sendable, Equatable {
        public var id: String
        /// Ceiling name (`Memcpy`, `Memset`) → percent.
        public var percentOf: [String: Double]
        public var bytesPerSecond: Double?
    }

    /// A cost a service pays for embedding Probe: the median of one of its benchmarks, and for a
    /// stack sample what it takes from the sampled thread (its `sampledThreadMicrosecondsPerSample`
    /// counter): the round trip is the watchdog's wait, this part is the stalled thread's.
    public struct ProbeCost: Sendable, Equatable {
        public var id: String
        public var medianNanoseconds: Double
        public var sampledThreadNanoseconds: Double? = nil
    }

    /// One kind of warning and the benchmarks it fired on.
    public struct WarningGroup: Sendable, Equatable {
        public var rule: String
        public var title: String
        public var benchmarkIDs: [String]
    }

    /// Did not hold first, then inconclusive, then held; report order within each.
    public var claims: [ClaimLine]
    /// Regressions (largest first), then improvements, when the report has a comparison.
    public var changes: [ComparisonEntry]
    /// What limits every verdict against the baseline (a side measured in one process).
    public var caveats: [Comparison.Caveat]
    /// Rounds of a process whose machine factor moved beyond the bound (``RoundFactors/jumps``).
    public var roundJumps: [RoundFactors.Jump]
    /// The bound the jumps lie beyond, in percent.
    public var roundBoundPercent: Double?
    /// Set, to the benchmarks a round needs, when a run compared with a baseline had rounds but no
    /// round's factor could be told: the gate then took the samples as measured.
    public var roundsUnknowable: Int?
    public var ceilingShares: [CeilingShare]
    public var probeCosts: [ProbeCost]
    /// Most benchmarks first.
    public var warningGroups: [WarningGroup]

    public init(_ report: Report) {
        let order: [Claim.Verdict: Int] = [.didNotHold: 0, .inconclusive: 1, .held: 2]
        claims = report.benchmarks.enumerated()
            .compactMap { index, result in
                result.claim.map { (index, ClaimLine(result: result, claim: $0)) }
            }
            .sorted { (order[$0.1.verdict]!, $0.0) < (order[$1.1.verdict]!, $1.0) }
            .map(\.1)

        let entries = report.comparison?.entries ?? []
        changes =
            entries.filter { $0.verdict == .regressed }.sorted { ($0.ratio ?? 1) > ($1.ratio ?? 1) }
            + entries.filter { $0.verdict == .improved }.sorted { ($0.ratio ?? 1) < ($1.ratio ?? 1) }

        caveats = report.comparison?.caveats ?? []
        roundJumps = report.roundFactors?.jumps ?? []
        roundBoundPercent = report.roundFactors?.boundPercent
        roundsUnknowable =
            report.comparison != nil && report.roundFactors?.isUnknowable == true
            ? report.roundFactors?.minimumBenchmarks : nil

        ceilingShares = report.benchmarks.compactMap { result in
            let prefix = "percentOf"
            let suffix = "Ceiling"
            var shares: [String: Double] = [:]
            for (name, value) in result.counters where name.hasPrefix(prefix) && name.hasSuffix(suffix) {
                shares[String(name.dropFirst(prefix.count).dropLast(suffix.count))] = value
            }
            guard !shares.isEmpty else { return nil }
            let rate = result.throughput.map { $0.perSecond(nanosecondsPerOperation: result.wallTime.median) }
            return CeilingShare(id: result.id, percentOf: shares, bytesPerSecond: rate)
        }

        probeCosts = report.benchmarks
            .filter { $0.suite == "Probe" && Self.probeCostGroups.contains($0.group) && $0.wallTime.median > 0 }
            .map {
                ProbeCost(
                    id: $0.id, medianNanoseconds: $0.wallTime.median,
                    sampledThreadNanoseconds: $0.counters["sampledThreadMicrosecondsPerSample"].map { $0 * 1000 })
            }

        var byRule: [String: [String]] = [:]
        var firstSeen: [String] = []
        for result in report.benchmarks {
            for rule in Set(result.warnings.map(\.rule)) {
                if byRule[rule] == nil { firstSeen.append(rule) }
                byRule[rule, default: []].append(result.id)
            }
        }
        warningGroups = firstSeen.map {
            WarningGroup(rule: $0, title: Warning.title(ofRule: $0), benchmarkIDs: byRule[$0]!)
        }
        .enumerated().sorted { ($1.element.benchmarkIDs.count, $0.offset) < ($0.element.benchmarkIDs.count, $1.offset) }
        .map(\.element)
    }

    /// Probe's groups whose medians are what a service pays: one stack sample of a stalled thread,
    /// and one ping of a watched queue.
    static let probeCostGroups: Set<String> = ["sample", "ping"]

    public func count(_ verdict: Claim.Verdict) -> Int { claims.count { $0.verdict == verdict } }

    public var isEmpty: Bool {
        claims.isEmpty && changes.isEmpty && caveats.isEmpty && roundJumps.isEmpty && roundsUnknowable == nil
            && ceilingShares.isEmpty && probeCosts.isEmpty && warningGroups.isEmpty
    }
}

extension Findings.ClaimLine {
    init(result: BenchmarkResult, claim: Claim) {
        self.init(
            id: result.id, statement: claim.statement, verdict: claim.verdict,
            summary: Self.firstClause(of: claim.evidence))
    }

    static func firstClause(of evidence: String) -> String {
        guard let end = evidence.range(of: "; ") else { return evidence }
        return String(evidence[..<end.lowerBound])
    }
}
