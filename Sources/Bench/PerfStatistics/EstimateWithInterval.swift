/// An estimate and the ends of its confidence interval, in the units of what was measured.
public protocol EstimateWithInterval {
    var estimate: Double { get set }
    var lower: Double { get set }
    var upper: Double { get set }
}

extension EstimateWithInterval {
    /// The same estimate and interval after a strictly increasing transform. Rank-based estimates
    /// and intervals (quantiles, Walsh averages of a symmetric centre) keep their meaning under one:
    /// computed on log ratios, they become ratios with `exp`.
    public func mapped(_ increasing: (Double) -> Double) -> Self {
        var mapped = self
        mapped.estimate = increasing(estimate)
        mapped.lower = increasing(lower)
        mapped.upper = increasing(upper)
        return mapped
    }
}
