/// Quartiles and Tukey fences of a set of samples, used to mark outliers in the strip plots the
/// same way the report counts them: mild beyond 1.5 × IQR, severe beyond 3 × IQR.
struct TukeyFences: Sendable, Equatable {
    enum Kind: Sendable, Equatable { case normal, mild, severe }

    var firstQuartile: Double
    var median: Double
    var thirdQuartile: Double

    init?(_ values: [Double]) {
        let sorted = values.filter(\.isFinite).sorted()
        guard !sorted.isEmpty else { return nil }
        firstQuartile = TukeyFences.quantile(sorted, 0.25)
        median = TukeyFences.quantile(sorted, 0.5)
        thirdQuartile = TukeyFences.quantile(sorted, 0.75)
    }

    var interquartileRange: Double { thirdQuartile - firstQuartile }
    var lowerMild: Double { firstQuartile - 1.5 * interquartileRange }
    var upperMild: Double { thirdQuartile + 1.5 * interquartileRange }
    var lowerSevere: Double { firstQuartile - 3 * interquartileRange }
    var upperSevere: Double { thirdQuartile + 3 * interquartileRange }

    func classify(_ value: Double) -> Kind {
        if value < lowerSevere || value > upperSevere { return .severe }
        if value < lowerMild || value > upperMild { return .mild }
        return .normal
    }

    /// Linear interpolation between closest ranks (the usual "type 7" quantile).
    static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        guard sorted.count > 1 else { return sorted.first ?? .nan }
        let position = q * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = Swift.min(lower + 1, sorted.count - 1)
        let fraction = position - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction
    }
}
