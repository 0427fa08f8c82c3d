extension ComparisonEntry.Verdict {
    /// The verdict in words, as the markdown summary and the HTML page show it (each adds its own
    /// symbol): "no change", "within noise", "inconclusive (machine busy)".
    public var displayName: String {
        switch self {
        case .regressed: "regressed"
        case .improved: "improved"
        case .noChange: "no change"
        case .withinNoise: "within noise"
        case .inconclusive: "inconclusive (machine busy)"
        case .added: "added"
        case .removed: "removed"
        }
    }
}
