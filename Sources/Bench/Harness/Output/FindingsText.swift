import PerfReport

/// The findings of a run as terminal text, printed before the table: the claims that did not hold
/// or stayed open (held ones as a count), what changed against the baseline, the rounds in which
/// the machine moved, the memory-ceiling shares, Probe's costs, and one line per kind of warning.
public enum FindingsText {
    public static func text(_ report: Report) -> String {
        let findings = Findings(report)
        let emulation = report.environment.emulationNote.map { "Emulated: \($0).\n" } ?? ""
        guard !findings.isEmpty else { return emulation.isEmpty ? "" : emulation + "\n" }
        var lines = [emulation + "Findings"]
        if !findings.claims.isEmpty {
            lines.append(
                "  claims: \(findings.count(.held)) held, \(findings.count(.didNotHold)) did not hold, "
                    + "\(findings.count(.inconclusive)) inconclusive")
            for claim in findings.claims where claim.verdict != .held {
                let verdict = claim.verdict == .didNotHold ? "did not hold" : "inconclusive"
                lines.append("    \(verdict.padding(12))  \(claim.id): \(claim.summary)")
            }
        }
        if let comparison = report.comparison {
            let regressed = comparison.count(.regressed)
            let improved = comparison.count(.improved)
            lines.append(
                "  against the baseline: \(regressed) regressed, \(improved) improved, "
                    + "\(comparison.entries.count - regressed - improved) unchanged or within noise")
            for entry in findings.changes {
                let change = entry.ratio.map { UnitFormatting.change(ratio: $0) } ?? "—"
                lines.append("    \(entry.verdict.rawValue.padding(12))  \(entry.id): \(change)")
            }
            for caveat in findings.caveats { lines.append("    note: \(ComparisonWording.caveat(caveat))") }
        }
        for note in ComparisonWording.roundNotes(findings) { lines.append("  note: \(note)") }
        if !findings.ceilingShares.isEmpty {
            lines.append("  memory ceiling (100% = as fast as that operation on the output's bytes):")
            for share in findings.ceilingShares {
                let percents = share.percentOf.sorted { $0.key < $1.key }
                    .map { "\(UnitFormatting.significant($0.value))% of \($0.key.lowercased())" }
                let rate = share.bytesPerSecond.map { ", \(UnitFormatting.bytesPerSecond($0))" } ?? ""
                lines.append("    \(share.id): \(percents.joined(separator: ", "))\(rate)")
            }
        }
        if !findings.probeCosts.isEmpty {
            let costs = findings.probeCosts.map { cost in
                let taken = cost.sampledThreadNanoseconds.map {
                    " (\(UnitFormatting.duration(nanoseconds: $0)) of it the sampled thread's)"
                }
                return "\(cost.id) \(UnitFormatting.duration(nanoseconds: cost.medianNanoseconds))\(taken ?? "")"
            }
            lines.append("  Probe costs (median): \(costs.joined(separator: ", "))")
        }
        if !findings.warningGroups.isEmpty {
            lines.append("  warnings:")
            for group in findings.warningGroups {
                let count = group.benchmarkIDs.count
                lines.append("    \(count) benchmark\(count == 1 ? "" : "s"): \(group.title) [\(group.rule)]")
                // Rules with something to do name their benchmarks (the first five) and say what.
                if let remedy = Warning.remedy(ofRule: group.rule) {
                    let named = group.benchmarkIDs.prefix(5).joined(separator: ", ")
                    lines.append("      \(named)\(count > 5 ? ", …" : ""): \(remedy)")
                }
            }
        }
        return lines.joined(separator: "\n") + "\n\n"
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
