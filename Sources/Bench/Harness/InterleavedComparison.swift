import PerfReport

/// Comparing two builds by time on one machine, as `perfkit ci` does: each side runs in several
/// separate processes, alternating A B B A A B …, so a slow minute on a shared machine lands on
/// both sides rather than on one. The rounds' samples are merged per side and compared once
/// (Mann–Whitney, Holm across all benchmarks, effect beyond the threshold); ``RegressionGate``
/// has the regressed ones measured again, interleaved, and only a regression the re-run confirms stands.
public enum InterleavedComparison {
    /// Which side runs first in each round: alternating, so neither side always runs right after
    /// the other (caches, frequency, the neighbours' rhythm).
    public static func order(round: Int) -> (first: Side, second: Side) {
        round.isMultiple(of: 2) ? (.baseline, .current) : (.current, .baseline)
    }

    public enum Side: String, Sendable {
        case baseline, current
    }

    /// One report from several rounds of the same benchmarks: every benchmark's samples in round
    /// order, statistics and stability warnings recomputed over all of them. Settings, environment
    /// and metrics come from the first round; the merge is complete only if every round was.
    /// Returns nil for no reports.
    public static func merge(_ reports: [Report]) -> Report? {
        guard var merged = reports.first else { return nil }
        var order: [String] = []
        var byID: [String: BenchmarkResult] = [:]
        // Rounds are numbered per process: each report's come after the previous reports', so that
        // samples of different processes are never taken for side-by-side ones.
        var firstRound = 0
        for report in reports {
            defer { firstRound += max(report.settings.rounds, 1) }
            for var result in report.benchmarks {
                for index in result.samples.indices {
                    result.samples[index].round = result.samples[index].round.map { $0 + firstRound }
                }
                if var existing = byID[result.id] {
                    existing.samples += result.samples
                    byID[result.id] = existing
                } else {
                    order.append(result.id)
                    byID[result.id] = result
                }
            }
        }
        merged.benchmarks = order.map { id in
            var result = byID[id]!
            let wall = SampleStatistics.summarize(result.samples.map(\.wallNanosecondsPerOperation))
            result.wallTime = wall
            let cpu = result.samples.compactMap { sample in
                sample.cpuNanoseconds.map { $0 / Double(max(sample.iterations, 1)) }
            }
            result.cpuTime = cpu.count == result.samples.count && !cpu.isEmpty ? SampleStatistics.summarize(cpu) : nil
            result.warnings = StabilityRules.warnings(for: wall, samples: result.samples)
            return result
        }
        let incomplete = reports.compactMap { $0.complete ? nil : ($0.incompleteReason ?? "incomplete") }
        merged.complete = incomplete.isEmpty
        merged.incompleteReason = incomplete.isEmpty ? nil : incomplete.joined(separator: "; ")
        merged.settings.samples = reports.map(\.settings.samples).reduce(0, +)
        return merged
    }

    /// A regular expression that matches exactly these benchmark ids (for `perfkit run --filter`).
    public static func filter(matchingExactly ids: [String]) -> String {
        "^(" + ids.map(escapeRegex).joined(separator: "|") + ")$"
    }

    static func escapeRegex(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if #"\^$.|?*+()[]{}"#.contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
