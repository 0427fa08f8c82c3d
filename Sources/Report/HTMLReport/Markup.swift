/// A piece of HTML (or inline SVG) that is already safe to put in a page.
///
/// Markup is built with string interpolation, and every interpolated `String` is escaped, so a
/// report value can only ever land in the page as text. Trusted markup is interpolated as
/// `Markup`; numbers go in through the labelled `px:` (chart coordinates) and `value:` (exact
/// numbers for sorting and tests) interpolations, which never produce `NaN` or `inf` (browsers log
/// an error for those in SVG attributes).
struct Markup: ExpressibleByStringInterpolation, Sendable, Equatable {
    private(set) var text: String

    init() { text = "" }

    /// Markup written by perfkit itself (CSS, the script); never pass report data here.
    init(trusted text: String) { self.text = text }

    init(stringLiteral value: String) { text = value }

    init(stringInterpolation: Interpolation) { text = stringInterpolation.text }

    mutating func append(_ other: Markup) { text += other.text }

    static func += (lhs: inout Markup, rhs: Markup) { lhs.append(rhs) }

    struct Interpolation: StringInterpolationProtocol {
        var text = ""

        init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount * 16)
        }

        mutating func appendLiteral(_ literal: String) { text += literal }

        /// Report data and any other text: escaped.
        mutating func appendInterpolation<S: StringProtocol>(_ string: S) { text += HTMLEscaping.escape(string) }

        mutating func appendInterpolation(_ markup: Markup) { text += markup.text }

        mutating func appendInterpolation(_ markups: [Markup]) {
            for markup in markups { text += markup.text }
        }

        mutating func appendInterpolation(_ value: Int) { text += String(value) }

        /// A chart coordinate or length, rounded to 0.1 px.
        mutating func appendInterpolation(px value: Double) { text += HTMLEscaping.coordinate(value) }

        /// An exact number, e.g. for `data-value` attributes.
        mutating func appendInterpolation(value: Double) { text += value.isFinite ? "\(value)" : "" }
    }
}

extension Array where Element == Markup {
    /// Joined with "/" followed by a line-break opportunity.
    func joinedWithBreaks() -> Markup {
        var result = Markup()
        for (index, markup) in enumerated() {
            if index > 0 { result += "/<wbr>" }
            result += markup
        }
        return result
    }

    func joined() -> Markup {
        var result = Markup()
        for markup in self { result += markup }
        return result
    }
}
