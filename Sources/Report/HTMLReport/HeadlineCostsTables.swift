import PerfReport

/// The headline costs under the claims: how close the memory-bound benchmarks come to the machine's
/// own ceiling, and what Probe costs a service per stack sample and per ping.
struct HeadlineCostsTables {
    var page: PageContext
    var findings: Findings

    func render() -> Markup {
        var out = Markup()
        if !findings.ceilingShares.isEmpty {
            let ceilings = Set(findings.ceilingShares.flatMap(\.percentOf.keys)).sorted()
            out += """
                <h3>Against the memory ceiling</h3><p class="small muted">100% = as fast as that operation on \
                the same bytes, measured in the same run.</p><table id="ceiling-shares"><thead><tr><th>Benchmark</th>
                """
            for ceiling in ceilings { out += "<th class=\"num\">% of \(ceiling.lowercased())</th>" }
            out += "<th class=\"num\">Throughput</th></tr></thead><tbody>"
            for share in findings.ceilingShares {
                out += "<tr><td class=\"name\">\(link(share.id))</td>"
                for ceiling in ceilings {
                    let percent = share.percentOf[ceiling].map { UnitFormatting.significant($0) + " %" } ?? "—"
                    out += "<td class=\"num\">\(percent)</td>"
                }
                let rate = share.bytesPerSecond.map(UnitFormatting.bytesPerSecond) ?? "—"
                out += "<td class=\"num\">\(rate)</td></tr>"
            }
            out += "</tbody></table>"
        }
        if !findings.probeCosts.isEmpty {
            out += """
                <h3>What Probe costs a service</h3><table id="probe-costs"><thead><tr><th>Benchmark</th>\
                <th class="num">Median</th><th class="num">Taken from the sampled thread (mean)</th></tr></thead><tbody>
                """
            for cost in findings.probeCosts {
                let taken = cost.sampledThreadNanoseconds.map { UnitFormatting.duration(nanoseconds: $0) } ?? "—"
                out += """
                    <tr><td class="name">\(link(cost.id))</td>\
                    <td class="num">\(UnitFormatting.duration(nanoseconds: cost.medianNanoseconds))</td>\
                    <td class="num">\(taken)</td></tr>
                    """
            }
            out += "</tbody></table>"
        }
        return out
    }

    private func link(_ id: String) -> Markup {
        "<a class=\"mono\" href=\"#\(page.benchmarkAnchors[id] ?? "")\">\(PageContext.breakable(id))</a>"
    }
}
