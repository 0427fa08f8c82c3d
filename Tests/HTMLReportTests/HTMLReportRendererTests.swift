import Foundation
import PerfReport
import Testing

@testable import HTMLReport

@Suite struct HTMLReportRendererTests {
    let current = SyntheticReports.current()
    let baseline = SyntheticReports.baseline()

    var html: String { HTMLReportRenderer.render(current, baseline: baseline) }

    @Test func everySectionIsPresent() {
        let html = html
        for id in ["summary", "environment", "warnings", "comparison", "benchmarks", "stalls", "startup"] {
            #expect(html.contains("<section id=\"\(id)\">"), "section \(id)")
        }
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(TagBalance.problem(in: html) == nil, "\(TagBalance.problem(in: html) ?? "")")
    }

    @Test func environmentValuesAreShown() {
        let html = html
        let environment = current.environment
        for value in [
            environment.host, environment.cpuModel, environment.kernel, environment.swiftVersion, "release", "3c98db0",
        ] {
            #expect(html.contains("<dd>\(value)"), "\(value)")
        }
        #expect(html.contains("2026-01-01T00:00:00Z"))
    }

    @Test func tableNumbersMatchTheReport() throws {
        let html = html
        for result in current.benchmarks {
            // The exact median is in the sortable cell, and its formatted form is shown.
            let cell =
                "data-value=\"\(result.wallTime.median)\">\(UnitFormatting.duration(nanoseconds: result.wallTime.median))</td>"
            #expect(html.contains(cell), "\(result.id)")
        }
        let json = try #require(current.benchmarks.first { $0.id == "IO/decode/json" })
        let rate = json.throughput!.perSecond(nanosecondsPerOperation: json.wallTime.median)
        #expect(html.contains(UnitFormatting.bytesPerSecond(rate)))
        #expect(UnitFormatting.bytesPerSecond(rate).hasSuffix("MiB/s"))
        let append = try #require(current.benchmarks.first { $0.parameter == 65536 })
        let items = append.throughput!.perSecond(nanosecondsPerOperation: append.wallTime.median)
        #expect(html.contains(UnitFormatting.itemsPerSecond(items)))
        // Claims, verdicts and compiled forms of the dispatch cases.
        #expect(
            html.contains(
                "protocol witness costs less than 5 ns <span class=\"badge claim-didnothold\">✗ did not hold</span>"))
        #expect(html.contains("<span class=\"tag\" title=\"$s5Bench4callyySiF\">witness-table</span>"))
    }

    @Test func verdictSummaryCountsMatchTheComparison() throws {
        let html = html
        let comparison = try #require(current.comparison)
        #expect(comparison.count(.regressed) == 1)
        #expect(html.contains("id=\"count-regressed\"><b>\(comparison.count(.regressed))</b>"))
        #expect(html.contains("id=\"count-improved\"><b>\(comparison.count(.improved))</b>"))
        let unchanged = comparison.count(.noChange) + comparison.count(.withinNoise)
        #expect(html.contains("id=\"count-unchanged\"><b>\(unchanged)</b>"))
    }

    @Test func regressionsAreListedFirst() throws {
        let html = html
        // In the summary list the first entry is the regression, then the improvement.
        let list = try #require(html.range(of: "<ol class=\"changes\" id=\"changes\">"))
        let end = try #require(html.range(of: "</ol>", range: list.upperBound..<html.endIndex))
        let summary = html[list.upperBound..<end.lowerBound]
        let regressed = try #require(summary.range(of: "Dispatch/<wbr>calls/<wbr>protocol witness"))
        let improved = try #require(summary.range(of: "Collections/<wbr>lookup/<wbr>Set&lt;Int&gt;"))
        #expect(regressed.lowerBound < improved.lowerBound)
        #expect(summary.hasPrefix("<li><span class=\"badge v-regressed\">▲ regressed</span>"))
        // In the comparison table the verdicts come in rank order: regressed rows first.
        let verdicts = html.components(separatedBy: "data-verdict=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
        #expect(verdicts.first == "regressed")
        #expect(verdicts.firstIndex(of: "improved")! < verdicts.firstIndex(of: "within-noise")!)
        // The change is given in words and numbers, never by colour alone.
        let entry = try #require(current.comparison?.entries.first { $0.verdict == .regressed })
        #expect(html.contains(UnitFormatting.change(ratio: entry.ratio!)))
    }

    /// Rounds in which the machine moved are a note of the findings, rounds counted from 1.
    @Test func theFindingsNameTheRoundsTheMachineMovedIn() throws {
        var report = current
        report.roundFactors = RoundFactors(
            boundPercent: 15, minimumBenchmarks: 4,
            processes: [RoundFactors.Process(process: 1, factors: [1, 1, 1.3, nil, 1])])
        let html = HTMLReportRenderer.render(report, baseline: baseline)
        #expect(
            html.contains("the machine moved within a process (a neighbour came or went): process 2 round 3 ×1.300"))
        #expect(!HTMLReportRenderer.render(current, baseline: baseline).contains("the machine moved within a process"))
    }

    @Test func theFindingsLeadWithTheClaimsVerdicts() throws {
        let html = html
        let findings = try #require(html.range(of: "<section id=\"summary\"><h2>Findings</h2>"))
        let environment = try #require(html.range(of: "<section id=\"environment\">"))
        let counts = try #require(html.range(of: "id=\"claim-counts\""))
        let open = try #require(html.range(of: "<table class=\"claims\" id=\"claims-open\">"))
        let held = try #require(html.range(of: "<table class=\"claims\" id=\"claims-held-table\">"))
        // Counts, then what did not hold, then what held, all before the environment.
        #expect(findings.upperBound < counts.lowerBound)
        #expect(counts.upperBound < open.lowerBound && open.upperBound < held.lowerBound)
        #expect(held.upperBound < environment.lowerBound)
        #expect(html.contains("<b>2</b>✓ held</span>"))
        #expect(html.contains("<b>1</b>✗ did not hold</span>"))
        let row = try #require(
            html.range(of: "Dispatch/<wbr>calls/<wbr>protocol witness</a></td><td>median 3.4 ns vs 5 ns</td>"))
        #expect(open.upperBound < row.lowerBound && row.upperBound < held.lowerBound)
        // Many held claims fold behind one line.
        var many = current
        for index in many.benchmarks.indices where many.benchmarks[index].claim == nil {
            many.benchmarks[index].claim = Claim(statement: "s", verdict: .held, evidence: "e")
        }
        let heldCount = many.benchmarks.count { $0.claim?.verdict == .held }
        #expect(heldCount > ClaimsTable.heldShownOpen)
        #expect(
            HTMLReportRenderer.render(many).contains(
                "<details id=\"claims-held\"><summary>\(heldCount) claims held</summary>"))
    }

    @Test func warningsAreGroupedByKindWithCounts() {
        var noisy = current
        for index in noisy.benchmarks.indices {
            noisy.benchmarks[index].warnings = [Warning(rule: "cv-above-5-percent", message: "CV above 5 %")]
        }
        let html = HTMLReportRenderer.render(noisy)
        #expect(html.contains("\(noisy.benchmarks.count) benchmarks: spread above 5% CV <span class=\"rule\">"))
        #expect(TagBalance.count("<details class=\"warning-kind\">", in: html) == 1)
    }

    @Test func chartsAreDrawn() {
        let html = html
        // Bar chart per group, strip plot per case, a scaling chart, ratio chart, timeline, icicle, waterfall.
        #expect(html.contains("Collections/append: median time per operation with 95% CI"))
        #expect(html.contains("Collections/append: time per operation vs size (log–log)"))
        #expect(html.contains("IO/decode/json: every sample&#39;s time per operation"))
        #expect(html.contains("(severe outlier)"))
        #expect(html.contains("Current / baseline median per benchmark"))
        #expect(html.contains("Stalls over time, one lane per watchdog"))
        #expect(html.contains("class=\"frame"))
        #expect(html.contains("Startup phases of /usr/local/bin/server --port=8080, cold vs warm"))
        // Baseline and current distributions are overlaid for compared benchmarks.
        #expect(html.contains("class=\"pt baseline\""))
        #expect(TagBalance.count("<svg", in: html) == TagBalance.count("</svg>", in: html))
        let document = html.components(separatedBy: "<script")[0]
        let hasNaN = document.contains("NaN") || document.lowercased().contains("nan ") || document.contains("inf ")
        #expect(!hasNaN)
    }

    @Test func stallFramesHaveFullNamesOnHoverAndInText() {
        let html = html
        let name = "closure #1 in EventLoop&lt;Channel&gt;.run() async throws -&gt; ()"
        #expect(html.contains("<title>\(name) + 0x24 in /usr/local/bin/server at Sources/Server/Handler.swift:42"))
        #expect(html.contains("<pre class=\"tree\">"))
        #expect(html.contains("  \(name) + 0x24"))
        // Two groups of stalls: the two similar ones are merged into one tree (38 + 38 samples).
        #expect(html.contains("2 stalls, 500 ms in total"))
        #expect(html.contains("    76 "))
        // The timeline starts at the run's start; the first stall began one second into the run.
        #expect(html.contains("time since the run started"))
        #expect(html.contains(">+1.00 s</td>"))
    }

    @Test func warningsNameTheRuleAndTheReason() {
        let html = html
        #expect(html.contains("CV 7.2 % is above 5 % <span class=\"rule\">[cv-above-5-percent]</span>"))
        #expect(
            html.contains("<span class=\"mono\">instructions</span>: perf_event_open: hardware counters not supported"))
        var debug = current
        debug.environment.buildConfiguration = "debug"
        debug.complete = false
        debug.incompleteReason = "interrupted (SIGINT)"
        let page = HTMLReportRenderer.render(debug)
        #expect(page.contains("<strong>debug build</strong>"))
        #expect(page.contains("<strong>Incomplete run</strong>: interrupted (SIGINT)"))
        #expect(!html.contains("<strong>debug build</strong>"))
    }

    @Test func noExternalResources() {
        let html = html
        #expect(!html.contains("http://"))
        #expect(!html.contains("https://"))
        #expect(!html.contains(" src="))
        #expect(TagBalance.count("<script", in: html) == 1)
        #expect(html.contains("default-src 'none'"))
    }

    @Test func reportWithoutComparisonOrExtras() {
        let html = HTMLReportRenderer.render(baseline)
        #expect(!html.contains("<section id=\"comparison\">"))
        #expect(!html.contains("<section id=\"stalls\">"))
        #expect(!html.contains("<section id=\"startup\">"))
        #expect(html.contains("No baseline comparison in this report."))
        #expect(TagBalance.problem(in: html) == nil)
    }

    @Test func hostileNamesAreEscapedEverywhere() {
        let hostile = SyntheticReports.current { "\($0) \(SyntheticReports.hostile)" }
        let html = HTMLReportRenderer.render(
            hostile, baseline: SyntheticReports.baseline { "\($0) \(SyntheticReports.hostile)" })
        #expect(!html.contains("<script>alert"))
        // The one script element is perfkit's own, and the policy allows only that script.
        #expect(html.lowercased().components(separatedBy: "<script").count == 2)
        #expect(html.contains("<script>\(PageStyle.script)</script>"))
        #expect(html.contains("script-src '\(HTMLReportRenderer.scriptHash)'"))
        #expect(TagBalance.count("<script", in: html) == 1)
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &quot;q&quot; &#39;a&#39; &amp; Array&lt;Int&gt;"))
        #expect(!html.contains("\"q\""))
        #expect(!html.contains("'a'"))
        #expect(!html.contains("Array<Int>"))
        #expect(TagBalance.count("<details", in: html) == TagBalance.count("</details>", in: html))
        #expect(TagBalance.problem(in: html) == nil, "\(TagBalance.problem(in: html) ?? "")")
        #expect(!html.contains("http://") && !html.contains("https://"))
    }

    /// A stall timed after it ended (no samples of its own) says so in the table and in its group.
    @Test func aStallThatEndedBetweenLooksSaysWhyItHasNoSamples() {
        var report = SyntheticReports.degenerate()
        report.stalls![0].unsampled = "it began and ended between two looks of the watchdog"
        report.stalls![0].callTree = nil
        let html = HTMLReportRenderer.render(report)
        #expect(html.contains("0 (3 unanswered) (ended between looks)</td>"))
        #expect(html.contains("No stacks were sampled for these stalls: it began and ended between two looks"))
    }

    @Test func degenerateNumbersNeverReachTheMarkup() {
        let html = HTMLReportRenderer.render(SyntheticReports.degenerate())
        let document = html.components(separatedBy: "<script")[0]
        let notANumber = document.range(of: #"\b(nan|NaN|inf|Infinity)\b"#, options: .regularExpression)
        #expect(notANumber == nil)
        // SVG lengths must never be negative (browsers log an error for those).
        #expect(!document.contains("width=\"-") && !document.contains("height=\"-"))
        #expect(TagBalance.problem(in: html) == nil, "\(TagBalance.problem(in: html) ?? "")")
        #expect(html.contains("<section id=\"stalls\">"))
        #expect(html.contains("No phases were marked."))
    }

    @Test func aThousandBenchmarksStayNavigable() {
        let large = SyntheticReports.large()
        let html = HTMLReportRenderer.render(large)
        #expect(TagBalance.count("<details class=\"group\">", in: html) == 20)
        #expect(!html.contains("<details class=\"group\" open>"))
        #expect(html.contains("<div class=\"filter\" id=\"filter\" hidden>"))
        #expect(TagBalance.count("class=\"bench-row\"", in: html) == 1000)
        #expect(TagBalance.problem(in: html) == nil)
    }

    @Test func jsonRoundTripRendersTheSamePage() throws {
        // Set PERFKIT_HTML_SAMPLES=<dir> to get the synthetic reports as JSON for `perfkit report`
        // and scripts/html-check.sh.
        if let directory = ProcessInfo.processInfo.environment["PERFKIT_HTML_SAMPLES"] {
            let url = URL(fileURLWithPath: directory)
            try ReportCoding.write(current, to: url.appendingPathComponent("current.json"))
            try ReportCoding.write(baseline, to: url.appendingPathComponent("baseline.json"))
            let hostile = SyntheticReports.current { "\($0) \(SyntheticReports.hostile)" }
            try ReportCoding.write(hostile, to: url.appendingPathComponent("hostile.json"))
            try ReportCoding.write(SyntheticReports.degenerate(), to: url.appendingPathComponent("degenerate.json"))
            try ReportCoding.write(SyntheticReports.large(), to: url.appendingPathComponent("large.json"))
            try Data(html.utf8).write(to: url.appendingPathComponent("direct.html"))
        }
        let decoded = try ReportCoding.decode(try ReportCoding.encode(current), path: "current.json")
        let same = HTMLReportRenderer.render(decoded, baseline: baseline) == html
        #expect(same)
    }
}
