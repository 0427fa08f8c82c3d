/// The page's inline style sheet and script. Both are constants written here, never built from
/// report data. The script only adds conveniences (filter box, sortable columns, opening
/// collapsed sections for printing); everything is readable without it.
enum PageStyle {
    static let css = """
        :root{--fg:#1d2330;--muted:#5b6475;--line:#d7dbe3;--bg:#fff;--panel:#f5f7fa;--accent:#2f5fb3;
        --bad:#b3261e;--bad-bg:#fde7e5;--good:#1e7a34;--good-bg:#e3f4e6;--same:#5b6475;--same-bg:#eef0f4;
        --warn:#8a5a00;--warn-bg:#fff3d6}
        *{box-sizing:border-box}
        body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);background:var(--bg)}
        main{max-width:1180px;margin:0 auto;padding:16px 20px 48px}
        header.top{border-bottom:1px solid var(--line);padding-bottom:8px;margin-bottom:12px}
        h1{font-size:22px;margin:0 0 4px}
        h2{font-size:18px;margin:28px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}
        h3{font-size:15px;margin:16px 0 6px}
        .muted,.small{color:var(--muted)}
        .small{font-size:12px}
        nav.toc a{margin-right:14px}
        a{color:var(--accent);text-decoration:none}
        a:hover{text-decoration:underline}
        code,pre,.mono{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12px}
        pre{background:var(--panel);padding:8px 10px;border-radius:4px;overflow-x:auto;white-space:pre}
        dl.env{display:grid;grid-template-columns:max-content 1fr max-content 1fr;gap:2px 14px;margin:0}
        dl.env dt{color:var(--muted)}
        dl.env dd{margin:0;overflow-wrap:anywhere}
        dl.stats{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:2px 16px;margin:6px 0}
        dl.stats div{display:flex;justify-content:space-between;gap:8px;border-bottom:1px dotted var(--line)}
        dl.stats dt{color:var(--muted)}
        dl.stats dd{margin:0;font-variant-numeric:tabular-nums}
        table{border-collapse:collapse;width:100%;margin:6px 0 10px;font-variant-numeric:tabular-nums}
        th,td{padding:3px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
        th{background:var(--panel);font-weight:600;white-space:nowrap}
        td.num,th.num{text-align:right;white-space:nowrap}
        td.nowrap{white-space:nowrap}
        td.name{overflow-wrap:break-word;min-width:12em}
        table.sortable th{cursor:pointer}
        table.sortable th[aria-sort=ascending]::after{content:" ▲"}
        table.sortable th[aria-sort=descending]::after{content:" ▼"}
        .badge{display:inline-block;padding:0 6px;border-radius:3px;font-size:12px;font-weight:600;white-space:nowrap;border:1px solid currentColor}
        .v-regressed,.claim-didnothold{color:var(--bad);background:var(--bad-bg)}
        .v-improved,.claim-held{color:var(--good);background:var(--good-bg)}
        .v-same,.v-other,.claim-inconclusive{color:var(--same);background:var(--same-bg)}
        .warnbox{border-left:4px solid var(--warn);background:var(--warn-bg);padding:6px 10px;margin:4px 0}
        .warnbox ul{margin:4px 0;padding-left:20px}
        .rule{font-family:ui-monospace,monospace;font-size:11px;color:var(--warn)}
        .verdict-summary{display:flex;flex-wrap:wrap;gap:10px;margin:8px 0}
        .verdict-summary .count{font-size:16px;padding:6px 12px;border-radius:4px;border:1px solid currentColor}
        .verdict-summary .count b{font-size:22px;margin-right:4px}
        ol.changes{padding-left:22px;margin:4px 0}
        ol.changes li{margin:3px 0}
        details{margin:4px 0}
        details>summary{cursor:pointer;padding:3px 0}
        details.suite>summary{font-size:17px;font-weight:600}
        details.group{border:1px solid var(--line);border-radius:4px;padding:2px 10px;margin:8px 0}
        details.group>summary{font-weight:600}
        details.bench{border-top:1px dotted var(--line);margin:0}
        details.bench>summary{font-size:13px}
        .filter{margin:8px 0}
        .filter input{font:inherit;padding:4px 8px;width:min(420px,100%)}
        svg.chart{display:block;max-width:100%;height:auto;margin:6px 0;color:var(--fg)}
        svg.chart text{font-size:11px;fill:currentColor}
        svg.chart text.caption{fill:var(--muted)}
        svg .axis line{stroke:#8a93a3;stroke-width:1}
        svg .axis line.grid{stroke:#e6e9ef}
        svg .bar{fill:#8fb0e3}
        svg .whisker{stroke:#1d2330;stroke-width:1.4}
        svg .bar-row:hover .bar{fill:#5d8ad6}
        svg .iqr{fill:#dfe7f5;stroke:#9fb3d9}
        svg .median{stroke:#1d2330;stroke-width:2}
        svg .pt{fill:#2f5fb3;fill-opacity:.75}
        svg .pt.baseline{fill:#8a93a3}
        svg .outlier-mild{fill:none;stroke:#c77700;stroke-width:1.5}
        svg .outlier-severe{fill:none;stroke:#b3261e;stroke-width:2}
        svg .line{fill:none;stroke-width:1.8}
        svg .series0{stroke:#2f5fb3;fill:#2f5fb3}svg .series1{stroke:#c25400;fill:#c25400}
        svg .series2{stroke:#1e7a34;fill:#1e7a34}svg .series3{stroke:#7b3fb3;fill:#7b3fb3}
        svg .series4{stroke:#a61e4d;fill:#a61e4d}svg .series5{stroke:#0b7285;fill:#0b7285}
        svg .series0 .line,svg .series1 .line,svg .series2 .line,svg .series3 .line,svg .series4 .line,svg .series5 .line{fill:none}
        svg .legend text{stroke:none}
        svg .threshold-band{fill:#eef0f4}
        svg .unity{stroke:#5b6475;stroke-dasharray:3 3}
        svg .ratio-row .marker{stroke:#1d2330}
        svg .ratio-row.v-regressed,svg .ratio-row.v-improved,svg .ratio-row.v-same,svg .ratio-row.v-other{background:none}
        svg .ratio-row.v-regressed .marker{fill:#b3261e}svg .ratio-row.v-improved .marker{fill:#1e7a34}
        svg .ratio-row.v-same .marker,svg .ratio-row.v-other .marker{fill:#c3c8d2}
        svg .ratio-row.v-regressed text{fill:#b3261e}svg .ratio-row.v-improved text{fill:#1e7a34}
        svg .frame rect{stroke:#fff;stroke-width:.5}
        svg .frame.f0 rect{fill:#f6b26b}svg .frame.f1 rect{fill:#f9cb9c}svg .frame.f2 rect{fill:#e69138}
        svg .frame.f3 rect{fill:#ffd966}svg .frame.f4 rect{fill:#f4a582}
        svg .frame:hover rect{stroke:#1d2330;stroke-width:1}
        svg .frame text{font-size:11px;fill:#1d2330}
        svg .stall rect{stroke:#1d2330;stroke-width:.5}
        svg .stall text{font-weight:700}
        svg .stall text.legend-label{font-weight:400}
        svg .c-cpu rect{fill:#f28e7d}svg .c-blocked rect{fill:#8fb0e3}svg .c-starved rect{fill:#f6d365}svg .c-unknown rect{fill:#c3c8d2}
        svg .phase.m-cold rect,svg .phase.m0 rect{fill:#5d8ad6}svg .phase.m-warm rect,svg .phase.m1 rect{fill:#f0a35e}
        svg .phase.m2 rect{fill:#7bc08a}svg .phase.m3 rect{fill:#b99ad8}
        pre.tree{max-height:420px;overflow:auto}
        .tag{display:inline-block;font-size:11px;padding:0 5px;border-radius:3px;background:var(--panel);border:1px solid var(--line);color:var(--muted)}
        .warn-mark{color:var(--warn);font-weight:700}
        figure.trend{margin:12px 0;padding:4px 10px 6px;border:1px solid var(--line);border-radius:4px}
        figure.trend.has-regression{border-left:4px solid var(--bad)}
        figure.trend.has-improvement{border-left:4px solid var(--good)}
        figure.trend figcaption{font-weight:600;overflow-wrap:anywhere}
        figure.trend ul{margin:2px 0;padding-left:20px}
        svg .level-band{fill:#dfe7f5;fill-opacity:.8}
        svg .level-mean{stroke:#1d2330;stroke-width:1.5}
        svg .change .marker{stroke-width:1.5;stroke-dasharray:4 3}
        svg .change.regression .marker{stroke:#b3261e}svg .change.improvement .marker{stroke:#1e7a34}
        svg .change.regression text{fill:#b3261e;font-weight:600}svg .change.improvement text{fill:#1e7a34;font-weight:600}
        svg .change.machine .marker{stroke:#6b7280}svg .change.machine text{fill:#6b7280}
        svg .runs path{fill:none;stroke:#1d2330;stroke-width:1}
        svg .runs circle{fill:#2f5fb3;fill-opacity:.8}
        [hidden]{display:none!important}
        @media print{
          body{font-size:11px}
          main{max-width:none;padding:0}
          .filter,nav.toc{display:none}
          details::details-content{content-visibility:visible;display:contents}
          details>summary{list-style:none}
          details.group,svg.chart,table tr,pre,figure.trend{break-inside:avoid}
          h2{break-after:avoid}
          pre,pre.tree{white-space:pre-wrap;max-height:none;overflow:visible}
          a{color:inherit}
          .badge,.verdict-summary .count,.warnbox{print-color-adjust:exact;-webkit-print-color-adjust:exact}
        }
        """

    static let script = """
        (function () {
          "use strict";
          var box = document.getElementById("filter");
          if (box) {
            box.hidden = false;
            var input = box.querySelector("input");
            input.addEventListener("input", function () {
              var query = input.value.trim().toLowerCase();
              document.querySelectorAll("[data-filter]").forEach(function (element) {
                var match = query === "" || element.getAttribute("data-filter").indexOf(query) >= 0;
                element.hidden = !match;
              });
              document.querySelectorAll("details.group, details.suite").forEach(function (group) {
                var visible = group.querySelector("[data-filter]:not([hidden])") !== null;
                group.hidden = !visible;
                if (query !== "" && visible) { group.open = true; }
              });
            });
          }
          document.querySelectorAll("table.sortable").forEach(function (table) {
            var headers = table.querySelectorAll("thead th");
            headers.forEach(function (header, column) {
              header.addEventListener("click", function () {
                var ascending = header.getAttribute("aria-sort") !== "ascending";
                headers.forEach(function (h) { h.removeAttribute("aria-sort"); });
                header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
                var body = table.tBodies[0];
                var rows = Array.prototype.slice.call(body.rows);
                function key(row) {
                  var cell = row.cells[column];
                  if (!cell) { return ""; }
                  var value = cell.getAttribute("data-value");
                  if (value !== null && value !== "" && !isNaN(Number(value))) { return Number(value); }
                  return cell.textContent.trim().toLowerCase();
                }
                rows.sort(function (a, b) {
                  var x = key(a), y = key(b);
                  if (typeof x === "number" && typeof y === "number") { return ascending ? x - y : y - x; }
                  return ascending ? String(x).localeCompare(String(y)) : String(y).localeCompare(String(x));
                });
                rows.forEach(function (row) { body.appendChild(row); });
              });
            });
          });
          function openTarget() {
            var id = decodeURIComponent(location.hash.slice(1));
            var element = id ? document.getElementById(id) : null;
            for (var node = element; node; node = node.parentElement) {
              if (node.tagName === "DETAILS") { node.open = true; }
            }
          }
          window.addEventListener("hashchange", openTarget);
          openTarget();
          window.addEventListener("beforeprint", function () {
            document.querySelectorAll("details").forEach(function (d) { d.open = true; });
          });
        })();
        """
}
