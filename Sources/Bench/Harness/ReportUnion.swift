import Foundation
import PerfReport

/// One report from the reports of several benchmark executables of a package (what
/// `swift package perfkit run` writes): their benchmarks side by side, as if one executable had
/// run them all.
///
/// Unlike ``InterleavedComparison/merge(_:)``, which pools the samples of the *same* benchmarks
/// measured in several rounds, the reports here hold *different* benchmarks; an id found in two
/// of them is an error, since a comparison could not tell the two apart.
public enum ReportUnion {
    public struct DuplicateBenchmarks: Error, CustomStringConvertible {
        public var ids: [String]
        public var description: String {
            "benchmark id in more than one report: \(ids.joined(separator: ", "))"
        }
    }

    /// The union of `reports`, or nil when there are none. Comparisons the reports carry are
    /// dropped: each was made against a baseline of its own executable; compare the union instead.
    /// So are their round factors, each of its own run; their rounds are renumbered to follow each other.
    public static func union(_ reports: [Report]) throws(DuplicateBenchmarks) -> Report? {
        guard var union = reports.first else { return nil }
        var seen = Set<String>()
        var duplicates: [String] = []
        for id in reports.flatMap({ $0.benchmarks.map(\.id) }) where !seen.insert(id).inserted {
            duplicates.append(id)
        }
        guard duplicates.isEmpty else { throw DuplicateBenchmarks(ids: duplicates) }

        union.createdAt = reports.map(\.createdAt).min() ?? union.createdAt
        // Rounds are numbered per report, each's after the previous reports': rounds of different
        // executables were not measured side by side, so they share no round's machine factor.
        var firstRound = 0
        union.benchmarks = reports.flatMap { report in
            let rounds = report.benchmarks.flatMap { $0.samples.compactMap(\.round) }.max().map { $0 + 1 } ?? 0
            defer { firstRound += rounds }
            return report.benchmarks.map { result in
                var result = result
                for index in result.samples.indices {
                    result.samples[index].round = result.samples[index].round.map { $0 + firstRound }
                }
                return result
            }
        }
        union.complete = reports.allSatisfy(\.complete)
        let reasons = reports.compactMap(\.incompleteReason)
        union.incompleteReason = reasons.isEmpty ? nil : reasons.joined(separator: "; ")
        // A filter recorded for one executable says nothing about another's selection.
        if Set(reports.map(\.settings.filter)).count > 1 { union.settings.filter = nil }
        union.metrics = union.metrics.map { metric in
            // Measured only if every executable measured it; otherwise the first reason why not.
            let missing = reports.lazy.compactMap { report in
                report.metrics.first { $0.metric == metric.metric && !$0.available }
            }.first
            return missing ?? metric
        }
        union.comparison = nil
        union.roundFactors = nil
        // Each executable's processes with a fixed hash seed measured its own benchmarks, as its others did.
        let fixedSeed = reports.compactMap(\.fixedHashSeedProcesses)
        union.fixedHashSeedProcesses = fixedSeed.isEmpty ? nil : fixedSeed.flatMap { $0 }
        let stalls = reports.compactMap(\.stalls)
        union.stalls = stalls.isEmpty ? nil : stalls.flatMap { $0 }
        let startup = reports.compactMap(\.startup)
        union.startup = startup.isEmpty ? nil : startup.flatMap { $0 }
        return union
    }
}
