import Foundation

extension UnitFormatting {
    /// Below this a p-value is shown as a bound: the tests' p-values are not accurate to more
    /// digits, and a reader needs to know only that it is far below any significance level.
    public static let smallestShownPValue = 0.001

    /// A p-value as every output states it: "p = 0.0123" (three significant digits) or
    /// "p < 0.001". One spelling for the terminal, the markdown summary and the HTML page, so the
    /// same comparison reads the same wherever it is shown.
    public static func pValue(_ p: Double) -> String {
        guard p.isFinite else { return "—" }
        if p < smallestShownPValue { return "p < \(String(format: "%g", smallestShownPValue))" }
        return String(format: "p = %.3g", p)
    }
}
