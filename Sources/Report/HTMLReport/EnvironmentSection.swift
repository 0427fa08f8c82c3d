import Foundation
import PerfReport

/// Where and how the run was measured; next to the baseline's environment when there is one,
/// with differences marked, because times from different machines or builds are not comparable.
struct EnvironmentSection {
    var page: PageContext

    func render() -> Markup {
        let report = page.report
        let current = EnvironmentSection.rows(report.environment)
        var out: Markup = "<dl class=\"env\">"
        var rows = current
        rows.append(("Date", page.date(report.createdAt)))
        rows.append(
            (
                "Clock",
                "\(report.clock.source), resolution \(UnitFormatting.duration(nanoseconds: report.clock.resolutionNanoseconds)), overhead \(UnitFormatting.duration(nanoseconds: report.clock.overheadNanoseconds)) per read pair (subtracted)"
            ))
        let settings = report.settings
        var settingsText =
            "\(settings.samples) samples, time budget \(UnitFormatting.count(settings.timeBudgetSeconds)) s, warm-up \(UnitFormatting.count(settings.warmupSeconds)) s, min sample \(UnitFormatting.duration(nanoseconds: settings.minSampleNanoseconds))"
        if settings.rounds > 1 { settingsText += ", spread over \(settings.rounds) rounds" }
        if settings.quick { settingsText += ", quick mode" }
        if let filter = settings.filter { settingsText += ", filter \(filter)" }
        rows.append(("Settings", settingsText))
        rows.append(("perfkit", report.tool.version))
        for (name, value) in rows {
            let flag: Markup =
                name == "Build configuration" && value != "release"
                ? " <span class=\"badge v-regressed\">⚠ not release</span>" : ""
            out += "<dt>\(name)</dt><dd>\(value)\(flag)</dd>"
        }
        out += "</dl>"
        if let baseline = report.comparison?.baselineEnvironment ?? page.baseline?.environment {
            let pairs = zip(current, EnvironmentSection.rows(baseline)).map { ($0.0, $0.1, $1.1) }
            let differing = pairs.filter { $0.1 != $0.2 }
            // Only the differences are shown up front; identical environments take one line.
            if differing.isEmpty {
                out += "<p id=\"environment-diff\">The baseline was measured in the same environment.</p>"
            } else {
                out += "<h3>Differences from the baseline's environment</h3>"
                out += EnvironmentSection.comparisonTable(differing, id: "environment-diff")
            }
            out += "<details><summary class=\"small\">Full environment of both runs</summary>"
            out += EnvironmentSection.comparisonTable(pairs, id: "environment-both")
            out += "</details>"
        }
        return out
    }

    private static func comparisonTable(_ rows: [(String, String, String)], id: String) -> Markup {
        var out: Markup = """
            <table id="\(id)"><thead><tr><th></th><th>current</th><th>baseline</th><th></th></tr></thead><tbody>
            """
        for (name, value, baselineValue) in rows {
            let differs = value != baselineValue
            let note: Markup =
                !differs ? "" : timeRelevant.contains(name) ? "<span class=\"warn-mark\">⚠ differs</span>" : "differs"
            out += "<tr><td>\(name)</td><td>\(value)</td><td>\(baselineValue)</td><td>\(note)</td></tr>"
        }
        out += "</tbody></table>"
        return out
    }

    /// Fields that, when they differ, make time comparisons doubtful.
    static let timeRelevant: Set<String> = [
        "Host", "CPU", "Architecture", "Emulation", "Cores", "Swift", "Build configuration", "Kernel", "CPU governor",
    ]

    static func rows(_ environment: Environment) -> [(String, String)] {
        [
            ("Host", environment.host),
            ("OS", environment.os),
            ("Kernel", environment.kernel),
            ("CPU", environment.cpuModel),
            ("Architecture", environment.architecture ?? "not recorded"),
            ("Emulation", environment.emulator ?? "none"),
            ("Cores", String(environment.coreCount)),
            ("Memory", environment.memoryBytes.map { UnitFormatting.bytes(Double($0)) } ?? "unknown"),
            ("Swift", environment.swiftVersion),
            ("Build configuration", environment.buildConfiguration),
            ("Git commit", environment.gitCommit ?? "unknown"),
            ("Load average", environment.loadAverage.map { String(format: "%.2f", $0) }.joined(separator: " ")),
            ("CPU governor", environment.cpuGovernor ?? "none exposed"),
        ]
    }
}
