import PerfkitHistory

/// Anchors of the history page that other pages link to. The run report's anchors are positions
/// ("b3"), which mean nothing on another page; these are digests of the names, so a run report
/// and the history page written at another time agree on them, and a name (user text) never
/// reaches an id attribute.
public enum HistoryAnchors {
    /// The file name the run report links to, beside it in the report directory.
    public static let pageFileName = "history.html"

    /// The place of a benchmark's first (most telling) chart on the history page.
    public static func benchmark(_ id: String) -> String { "t-" + digest(id) }

    /// The place of one series' chart.
    public static func series(_ series: HistorySeries) -> String {
        "s-" + digest("\(series.benchmark)\u{0}\(series.metric.rawValue)\u{0}\(series.machine.key)")
    }

    /// 64 bits of SHA-256 in hex: a collision among a page's few thousand names is not a concern.
    private static func digest(_ text: String) -> String {
        SHA256.hash(Array(text.utf8)).prefix(8).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }
        .joined()
    }
}
