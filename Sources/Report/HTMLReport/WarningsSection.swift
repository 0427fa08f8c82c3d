import PerfReport

/// Everything that makes the numbers less trustworthy, in one place near the top: a debug build,
/// an incomplete run, a busy machine, a baseline from another machine, unstable benchmarks (with
/// the rule that fired) and metrics that could not be measured (with the reason).
struct WarningsSection {
    var page: PageContext
    private var runWarnings: [Markup] = []
    private var unstable: [(BenchmarkResult, Warning)] = []
    private var unavailable: [MetricAvailability] = []

    init(page: PageContext) {
        self.page = page
        let report = page.report
        let environment = report.environment
        if environment.buildConfiguration != "release" {
            runWarnings.append(
                "<strong>\(environment.buildConfiguration) build</strong>: timings of an unoptimised build say little about release performance."
            )
        }
        if let note = environment.emulationNote {
            runWarnings.append("<strong>Emulated</strong>: \(note).")
        }
        if !report.complete {
            runWarnings.append(
                "<strong>Incomplete run</strong>: \(report.incompleteReason ?? "stopped before every benchmark finished"). Only what finished is shown."
            )
        }
        if report.settings.quick {
            runWarnings.append("<strong>Quick mode</strong>: fewer samples, wider confidence intervals.")
        }
        if let load = environment.loadAverage.first, environment.coreCount > 0,
            load > Double(environment.coreCount) * 0.5
        {
            runWarnings.append(
                "<strong>Busy machine</strong>: load average \(UnitFormatting.significant(load)) on \(environment.coreCount) cores at the start of the run."
            )
        }
        if let baseline = report.comparison?.baselineEnvironment {
            let differing = zip(EnvironmentSection.rows(environment), EnvironmentSection.rows(baseline))
                .filter { $0.0.1 != $0.1.1 && EnvironmentSection.timeRelevant.contains($0.0.0) }
                .map(\.0.0)
            if !differing.isEmpty {
                runWarnings.append(
                    "<strong>Different environment</strong>: the baseline differs in \(differing.joined(separator: ", ")); time differences may not be caused by the code."
                )
            }
        }
        for result in report.benchmarks {
            for warning in result.warnings { unstable.append((result, warning)) }
        }
        unavailable = report.metrics.filter { !$0.available }
    }

    var count: Int { runWarnings.count + unstable.count + unavailable.count }
    var isEmpty: Bool { count == 0 }

    func render() -> Markup {
        var out = Markup()
        if !runWarnings.isEmpty {
            out += "<div class=\"warnbox\" id=\"run-warnings\"><ul>"
            for warning in runWarnings { out += "<li>\(warning)</li>" }
            out += "</ul></div>"
        }
        if !unstable.isEmpty {
            // One folded line per kind of warning: on a quick run one rule fires on most benchmarks,
            // and a list of 78 of the same says less than "78 benchmarks: spread above 5% CV".
            let affected = Set(unstable.map(\.0.id)).count
            out += """
                <div class="warnbox" id="unstable"><strong>Unstable or suspicious results</strong>: \
                \(affected) benchmark case\(affected == 1 ? "" : "s"), \(unstable.count) \
                warning\(unstable.count == 1 ? "" : "s"), by kind:
                """
            for group in Findings(page.report).warningGroups {
                var list: Markup = "<ul>"
                for (result, warning) in unstable where warning.rule == group.rule {
                    list += """
                        <li data-filter="\(PageContext.filterKey(result.id))"><a class="mono" \
                        href="#\(page.benchmarkAnchors[result.id] ?? "")">\(result.id)</a>: \(warning.message) \
                        <span class="rule">[\(warning.rule)]</span></li>
                        """
                }
                list += "</ul>"
                let count = group.benchmarkIDs.count
                out += """
                    <details class="warning-kind"><summary>\(count) benchmark\(count == 1 ? "" : "s"): \
                    \(group.title) <span class="rule">[\(group.rule)]</span></summary>\(list)</details>
                    """
            }
            out += "</div>"
        }
        if !unavailable.isEmpty {
            out += "<div class=\"warnbox\" id=\"unavailable-metrics\"><strong>Metrics not measured</strong><ul>"
            for metric in unavailable {
                out +=
                    "<li><span class=\"mono\">\(metric.metric.rawValue)</span>: \(metric.reason ?? "no reason given")</li>"
            }
            out += "</ul></div>"
        }
        return out
    }
}
