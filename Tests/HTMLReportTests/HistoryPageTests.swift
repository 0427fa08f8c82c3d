import Foundation
import PerfkitHistory
import PerfReport
import Testing

@testable import HTMLReport

/// The history page (`perfkit history report`): a chart per series, in the order of what changed,
/// each change marked at its commit, and nothing a name could inject or a page could load.
@Suite struct HistoryPageTests {
    typealias S = SyntheticHistory

    let runs = S.runs()
    var page: HistoryPage { S.page(runs) }
    var html: String { page.render() }

    /// The `<figure class="trend…">` blocks of the page, in order.
    static func figures(_ html: String) -> [String] {
        html.components(separatedBy: "<figure class=\"trend").dropFirst().map { part in
            part.components(separatedBy: "</figure>")[0]
        }
    }

    @Test func oneChartPerSeries() {
        let html = html
        let series = page.series
        // 3 benchmarks × 2 metrics on ci-large, and the same 6 with a single run on the laptop.
        #expect(series.count == 12)
        let figures = Self.figures(html)
        #expect(figures.count == series.count)
        #expect(figures.allSatisfy { TagBalance.count("<svg class=\"chart\"", in: $0) == 1 })
        for one in series {
            #expect(TagBalance.count("id=\"\(HistoryAnchors.series(one))\"", in: html) == 1)
        }
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(TagBalance.problem(in: html) == nil, "\(TagBalance.problem(in: html) ?? "")")
    }

    @Test func regressionSeriesComeFirstThenImprovementsThenTheRest() {
        let figures = Self.figures(html)
        func kind(_ figure: String) -> Int {
            figure.hasPrefix(" has-regression") ? 0 : figure.hasPrefix(" has-improvement") ? 1 : 2
        }
        let kinds = figures.map(kind)
        #expect(kinds == kinds.sorted(), "\(kinds)")
        // sum's wall time and instructions rose, sort's wall time fell; its instructions stayed flat.
        #expect(kinds.filter { $0 == 0 }.count == 2)
        #expect(kinds.filter { $0 == 1 }.count == 1)
        #expect(figures[0].contains("Demo/<wbr>work/<wbr>sum"))
        #expect(figures[2].contains("Demo/<wbr>work/<wbr>sort") && figures[2].contains("wall time"))
    }

    @Test func changeMarkersSitAtTheirCommit() throws {
        let outcome = page.outcome
        #expect(outcome.changes.count == 3)
        let html = html
        for change in outcome.changes {
            let figure = try #require(
                Self.figures(html).first {
                    $0.contains(PageContext.breakable(change.benchmark).text)
                        && $0.contains("· \(change.metric.reportMetric.displayName) ·") && $0.contains("data-commit")
                })
            let style = change.isRegression ? "regression" : "improvement"
            let marker = try #require(
                figure.range(of: "<g class=\"change \(style)\" data-commit=\"\(change.commit)\">"))
            #expect(change.commit == S.commit(change.isRegression ? 12 : 20))
            // The marker's x is the x of the commit's dots.
            let markerX = try #require(Self.attribute("x1", after: marker.upperBound, in: figure))
            let group = try #require(figure.range(of: "<title>\(HistoryWording.short(change.commit)) (#"))
            let dotX = try #require(Self.attribute("cx", after: group.upperBound, in: figure))
            #expect(markerX == dotX)
            #expect(figure.contains(">\(HistoryWording.shift(change))</text>"))
            // The levels before and after, as segments.
            #expect(TagBalance.count("<line class=\"level-mean\"", in: figure) == 2)
        }
    }

    @Test func theSentencesAreHistoryWordings() {
        let html = html
        let outcome = page.outcome
        for change in outcome.changes {
            #expect(html.contains(HTMLEscaping.escape(HistoryWording.headline(change))))
            #expect(html.contains(HTMLEscaping.escape(HistoryWording.place(change))))
            #expect(html.contains(HTMLEscaping.escape(HistoryWording.levels(change))))
            if let instructions = HistoryWording.instructions(change) {
                #expect(html.contains(HTMLEscaping.escape(instructions)))
            }
        }
        #expect(html.contains(HistoryWording.skipped(.dirty, count: 1)))
        #expect(html.contains(HistoryWording.changeCount(3)))
    }

    @Test func runsOfOneCommitShareOnePlace() throws {
        let html = html
        let figure = try #require(
            Self.figures(html).first { $0.contains("Demo/<wbr>work/<wbr>flat") && $0.contains("wall time") })
        let group = try #require(figure.range(of: "<title>\(HistoryWording.short(S.commit(25))) (#25): "))
        let end = try #require(figure[group.upperBound...].range(of: "</g>"))
        let dots = TagBalance.count("<circle ", in: String(figure[group.upperBound..<end.lowerBound]))
        #expect(dots == 2)
        // Intervals as whiskers for times; none for the exact counts.
        #expect(figure.contains("<g class=\"runs\"><g><title>") && figure.contains("<path d=\"M"))
        let counts = try #require(
            Self.figures(html).first { $0.contains("Demo/<wbr>work/<wbr>flat") && $0.contains("· instructions ·") })
        #expect(!counts.contains("<path d=\"M"))
    }

    @Test func hostileNamesAreEscaped() {
        let hostile = S.runs { "\($0) \(SyntheticReports.hostile)" }
        let html = S.page(hostile).render()
        #expect(!html.contains("<script>alert"))
        #expect(TagBalance.count("<script", in: html) == 1)
        #expect(html.contains("<script>\(PageStyle.script)</script>"))
        #expect(html.contains("script-src '\(PageDocument.scriptHash)'"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &quot;q&quot; &#39;a&#39; &amp; Array&lt;Int&gt;"))
        #expect(!html.contains("\"q\"") && !html.contains("'a'") && !html.contains("Array<Int>"))
        #expect(TagBalance.problem(in: html) == nil, "\(TagBalance.problem(in: html) ?? "")")
        // Anchors are digests: no name reaches an id.
        let ids = html.components(separatedBy: " id=\"").dropFirst().map { part in part.prefix { $0 != "\"" } }
        #expect(ids.allSatisfy { id in id.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" } }, "\(ids)")
        #expect(Self.figures(html).count == 12)
    }

    @Test func noExternalURL() {
        for html in [html, S.page([]).render()] {
            #expect(!html.contains("http://"))
            #expect(!html.contains("https://"))
            #expect(!html.contains(" src="))
            #expect(html.contains("default-src 'none'"))
        }
    }

    @Test func anEmptyStoreIsAPageToo() {
        let html = S.page([]).render()
        #expect(html.contains("No series: the store has no runs to draw."))
        #expect(html.contains(HistoryWording.changeCount(0)))
        #expect(TagBalance.problem(in: html) == nil)
    }

    @Test func aThousandSeriesRenderWithLongSeriesCut() throws {
        let runs = S.large()
        let page = S.page(runs)
        let html = page.render()
        let figures = Self.figures(html)
        #expect(figures.count == 1001)
        #expect(page.outcome.changes.count == 10)
        #expect(figures.prefix(10).allSatisfy { $0.hasPrefix(" has-regression") })
        #expect(TagBalance.problem(in: html) == nil)
        let long = try #require(figures.first { $0.contains("Long/<wbr>series/<wbr>case") })
        #expect(TagBalance.count("<circle ", in: long) == TrendChart.maxRuns)
        #expect(long.contains(HistoryWording.drawn(shown: TrendChart.maxRuns, of: 300)))
        #expect(long.contains(">\(HistoryWording.short(S.commit(300)))</text>"))
        #expect(!long.contains(">\(HistoryWording.short(S.commit(1)))</text>"))
    }

    /// The run report links each benchmark to its trend by the same digest anchor.
    @Test func theRunReportLinksToTheTrend() throws {
        let report = SyntheticReports.current()
        let linked = HTMLReportRenderer.render(report, linkingHistory: true)
        let id = try #require(report.benchmarks.first?.id)
        #expect(linked.contains("href=\"history.html#\(HistoryAnchors.benchmark(id))\""))
        #expect(TagBalance.count("href=\"history.html#", in: linked) == 2 * report.benchmarks.count)
        #expect(TagBalance.problem(in: linked) == nil)
        #expect(!HTMLReportRenderer.render(report).contains("history.html"))

        let html = html
        let benchmark = try #require(runs.first?.results.first?.benchmark)
        #expect(TagBalance.count("<span id=\"\(HistoryAnchors.benchmark(benchmark))\">", in: html) == 1)
    }

    /// A shift between runs of one executable is listed after the change points, in grey, and not
    /// counted as one; its series is not ranked with the regressions.
    @Test func aShiftOfTheMachineIsGreyAndNoChangePoint() throws {
        let page = S.page(S.machineShift())
        #expect(page.outcome.changes.map(\.isMachineShift) == [false, true])
        let html = page.render()
        #expect(html.contains("<h2>Change points (1)</h2>"))
        #expect(html.contains("1 change point; 1 shift of the machine"))
        let figures = Self.figures(html)
        #expect(figures.count == 2)
        #expect(figures[0].hasPrefix(" has-regression") && figures[0].contains("Demo/<wbr>work/<wbr>sort"))
        let shifted = figures[1]
        #expect(shifted.hasPrefix("\""), "no regression or improvement style")
        #expect(shifted.contains("class=\"badge v-same\""))
        #expect(shifted.contains("<g class=\"change machine\""))
        #expect(shifted.contains("the machine moved, not the code"))
    }

    /// Set PERFKIT_HTML_SAMPLES=<dir> to get history pages for scripts/html-check.sh.
    @Test func samplesForTheBrowserCheck() throws {
        guard let directory = ProcessInfo.processInfo.environment["PERFKIT_HTML_SAMPLES"] else { return }
        let url = URL(fileURLWithPath: directory)
        try Data(html.utf8).write(to: url.appendingPathComponent("history.html"))
        let hostile = S.page(S.runs { "\($0) \(SyntheticReports.hostile)" }).render()
        try Data(hostile.utf8).write(to: url.appendingPathComponent("history-hostile.html"))
        try Data(S.page(S.large()).render().utf8).write(to: url.appendingPathComponent("history-large.html"))
        try Data(S.page(S.machineShift()).render().utf8).write(to: url.appendingPathComponent("history-machine.html"))
    }

    /// The value of the first `name="…"` attribute after `index`.
    static func attribute(_ name: String, after index: String.Index, in text: String) -> String? {
        guard let start = text[index...].range(of: " \(name)=\"") else { return nil }
        return String(text[start.upperBound...].prefix { $0 != "\"" })
    }
}
