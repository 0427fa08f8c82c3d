import PerfReport

/// Startup phases per command: a waterfall with cold and warm launches side by side and a table
/// of each phase's median mark and spread.
struct StartupSection {
    var results: [StartupResult]

    func render() -> Markup {
        var commands: [[String]] = []
        for result in results where !commands.contains(result.command) { commands.append(result.command) }
        var out = Markup()
        for command in commands {
            let runs = results.filter { $0.command == command }
                .sorted { StartupSection.modeOrder($0.mode) < StartupSection.modeOrder($1.mode) }
            let name = command.joined(separator: " ")
            out += "<h3 class=\"mono\">\(name)</h3>"
            out += StartupWaterfall(title: "Startup phases of \(name), cold vs warm", results: runs).render()
            out += "<table class=\"startup-table\"><thead><tr><th>Phase</th>"
            for run in runs {
                out += "<th class=\"num\">\(run.mode) median</th><th class=\"num\">\(run.mode) min … p90</th>"
            }
            out += "</tr></thead><tbody>"
            var phaseNames: [String] = []
            for run in runs {
                for phase in run.phases where !phaseNames.contains(phase.name) { phaseNames.append(phase.name) }
            }
            for phaseName in phaseNames {
                out += "<tr><td>\(phaseName)</td>"
                for run in runs {
                    if let phase = run.phases.first(where: { $0.name == phaseName }) {
                        out += StartupSection.cells(phase.statistics)
                    } else {
                        out += "<td class=\"num\">—</td><td class=\"num\">—</td>"
                    }
                }
                out += "</tr>"
            }
            out += "<tr><td><strong>total</strong></td>"
            for run in runs { out += StartupSection.cells(run.total) }
            out += "</tr></tbody></table>"
            for run in runs {
                let faults = run.majorPageFaultsPerLaunch.sorted()
                let medianFaults = faults.isEmpty ? "—" : String(faults[faults.count / 2])
                out += """
                    <p class="small muted">\(run.mode): \(run.runs) launches\(run.underPressure ? ", under memory pressure" : ""), \
                    time zero from \(run.timeZeroSource), median major page faults per launch \(medianFaults).</p>
                    """
            }
        }
        return out
    }

    static func cells(_ statistics: Statistics) -> Markup {
        """
        <td class="num" data-value="\(value: statistics.median)">\(UnitFormatting.duration(nanoseconds: statistics.median))</td>\
        <td class="num">\(UnitFormatting.duration(nanoseconds: statistics.min)) … \(UnitFormatting.duration(nanoseconds: statistics.p90))</td>
        """
    }

    static func modeOrder(_ mode: String) -> Int {
        switch mode {
        case "cold": return 0
        case "warm": return 1
        default: return 2
        }
    }
}
