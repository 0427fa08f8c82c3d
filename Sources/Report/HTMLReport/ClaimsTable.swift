import PerfReport

/// The claims' verdicts at the top of the page: counts, then one row per claim with the clause of
/// evidence that decided it. The claims that did not hold or stayed open come first and are always
/// shown; the held ones follow, folded when there are many, so the first screen is the news.
struct ClaimsTable {
    var page: PageContext
    var findings: Findings

    /// Held claims beyond this many are folded behind a summary line.
    static let heldShownOpen = 8

    func render() -> Markup {
        guard !findings.claims.isEmpty else { return "" }
        var out: Markup = "<h3>Claims</h3><div class=\"verdict-summary\" id=\"claim-counts\">"
        out += "<span class=\"count claim-held\"><b>\(findings.count(.held))</b>✓ held</span>"
        out += "<span class=\"count claim-didnothold\"><b>\(findings.count(.didNotHold))</b>✗ did not hold</span>"
        out += "<span class=\"count claim-inconclusive\"><b>\(findings.count(.inconclusive))</b>? inconclusive</span>"
        out += "</div>"
        let open = findings.claims.filter { $0.verdict != .held }
        let held = findings.claims.filter { $0.verdict == .held }
        if !open.isEmpty { out += table(open, id: "claims-open") }
        if held.count > Self.heldShownOpen {
            out += """
                <details id="claims-held"><summary>\(held.count) claims held</summary>\(table(held, id: "claims-held-table"))\
                </details>
                """
        } else if !held.isEmpty {
            out += table(held, id: "claims-held-table")
        }
        return out
    }

    private func table(_ claims: [Findings.ClaimLine], id: String) -> Markup {
        var out: Markup =
            "<table class=\"claims\" id=\"\(id)\"><thead><tr><th>Verdict</th><th>Benchmark</th><th>Evidence</th></tr></thead><tbody>"
        for claim in claims {
            out += """
                <tr><td>\(BenchmarksSection.claimBadge(claim.verdict))</td>\
                <td class="name"><a class="mono" href="#\(page.benchmarkAnchors[claim.id] ?? "")" \
                title="\(claim.statement)">\(PageContext.breakable(claim.id))</a></td>\
                <td>\(claim.summary)</td></tr>
                """
        }
        out += "</tbody></table>"
        return out
    }
}
