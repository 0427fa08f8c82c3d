import PerfReport

/// How a comparison verdict is shown: in words, with a symbol and a colour class, so that colour
/// is never the only signal.
struct ComparisonVerdictStyle: Sendable, Equatable {
    var words: String
    var symbol: String
    var cssClass: String
    /// Sort order on the page: regressions first.
    var rank: Int

    init(_ verdict: ComparisonEntry.Verdict) {
        switch verdict {
        case .regressed: (words, symbol, cssClass, rank) = ("regressed", "▲", "v-regressed", 0)
        case .improved: (words, symbol, cssClass, rank) = ("improved", "▼", "v-improved", 1)
        case .inconclusive: (words, symbol, cssClass, rank) = ("inconclusive (machine busy)", "?", "v-other", 2)
        case .removed: (words, symbol, cssClass, rank) = ("removed", "−", "v-other", 3)
        case .added: (words, symbol, cssClass, rank) = ("added", "+", "v-other", 4)
        case .withinNoise: (words, symbol, cssClass, rank) = ("within noise", "≈", "v-same", 5)
        case .noChange: (words, symbol, cssClass, rank) = ("no change", "=", "v-same", 6)
        }
    }

    /// A badge: symbol and words on a coloured background.
    var badge: Markup { "<span class=\"badge \(cssClass)\">\(symbol) \(words)</span>" }
}
