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
        words = verdict.displayName
        switch verdict {
        case .regressed: (symbol, cssClass, rank) = ("▲", "v-regressed", 0)
        case .improved: (symbol, cssClass, rank) = ("▼", "v-improved", 1)
        case .inconclusive: (symbol, cssClass, rank) = ("?", "v-other", 2)
        case .removed: (symbol, cssClass, rank) = ("−", "v-other", 3)
        case .added: (symbol, cssClass, rank) = ("+", "v-other", 4)
        case .withinNoise: (symbol, cssClass, rank) = ("≈", "v-same", 5)
        case .noChange: (symbol, cssClass, rank) = ("=", "v-same", 6)
        }
    }

    /// A badge: symbol and words on a coloured background.
    var badge: Markup { "<span class=\"badge \(cssClass)\">\(symbol) \(words)</span>" }
}
