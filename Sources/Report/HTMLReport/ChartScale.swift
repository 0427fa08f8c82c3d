import Foundation

/// Maps data values to pixels along one axis, linearly or logarithmically, and picks round tick values.
struct ChartScale: Sendable {
    var lower: Double
    var upper: Double
    var pixelLower: Double
    var pixelUpper: Double
    var logarithmic: Bool
    /// Tick values to use instead of the automatic ones (those outside the domain are dropped).
    var tickValues: [Double]?

    /// A scale covering `values` (non-finite ones, and non-positive ones on a log scale, are
    /// ignored), drawn from pixel `pixels.from` (lowest value) to `pixels.to` (highest; smaller
    /// than `from` for a vertical axis that grows upwards).
    /// A linear scale starts at zero when `includeZero` is set, so bar lengths are honest.
    init(covering values: [Double], pixels: (from: Double, to: Double), logarithmic: Bool, includeZero: Bool = false) {
        let usable = values.filter { $0.isFinite && (!logarithmic || $0 > 0) }
        var low = usable.min() ?? (logarithmic ? 1 : 0)
        var high = usable.max() ?? (logarithmic ? 10 : 1)
        if logarithmic {
            low = pow(10, floor(log10(low)))
            high = pow(10, ceil(log10(high)))
            if high <= low { high = low * 10 }
        } else {
            if includeZero { low = Swift.min(0, low) }
            if high <= low {
                let pad = low == 0 ? 1 : abs(low) * 0.1
                low -= includeZero && low == 0 ? 0 : pad
                high += pad
            } else if !includeZero {
                let pad = (high - low) * 0.05
                low -= pad
                high += pad
            } else {
                high += (high - low) * 0.05
            }
        }
        self.lower = low
        self.upper = high
        self.pixelLower = pixels.from
        self.pixelUpper = pixels.to
        self.logarithmic = logarithmic
    }

    func callAsFunction(_ value: Double) -> Double {
        let fraction: Double
        if logarithmic {
            let clamped = Swift.max(value, lower)
            fraction = (log10(clamped) - log10(lower)) / (log10(upper) - log10(lower))
        } else {
            fraction = (value - lower) / (upper - lower)
        }
        return pixelLower + fraction * (pixelUpper - pixelLower)
    }

    /// Round values inside the domain: 1-2-5 steps on a linear scale, powers of ten (with 2 and 5
    /// when the domain spans less than two decades) on a log scale.
    func ticks(approximateCount: Int = 5) -> [Double] {
        if let tickValues { return tickValues.filter { $0 >= lower && $0 <= upper } }
        if logarithmic {
            let first = Int(floor(log10(lower)))
            let last = Int(ceil(log10(upper)))
            let decades = last - first
            var ticks: [Double] = []
            let stride = Swift.max(1, decades / 8)
            for exponent in Swift.stride(from: first, through: last, by: stride) {
                let base = pow(10, Double(exponent))
                let multipliers: [Double] = decades < 2 ? [1, 2, 5] : [1]
                for multiplier in multipliers {
                    let value = base * multiplier
                    if value >= lower * 0.999, value <= upper * 1.001 { ticks.append(value) }
                }
            }
            return ticks
        }
        let span = upper - lower
        guard span > 0, span.isFinite else { return [lower] }
        let rough = span / Double(Swift.max(approximateCount, 1))
        let magnitude = pow(10, floor(log10(rough)))
        let count = Double(Swift.max(approximateCount, 1))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.min { abs(span / $0 - count) < abs(span / $1 - count) }!
        var ticks: [Double] = []
        var value = ceil(lower / step) * step
        while value <= upper + step * 1e-9, ticks.count < 50 {
            ticks.append(abs(value) < step * 1e-9 ? 0 : value)
            value += step
        }
        return ticks
    }
}

/// Shared pieces of the generated SVG charts.
enum ChartParts {
    /// Shortens a label to at most `limit` characters, marking the cut with an ellipsis. The full
    /// text always goes into a `<title>` next to it.
    static func truncated(_ text: String, limit: Int) -> String {
        guard text.count > limit, limit > 1 else { return text }
        return String(text.prefix(limit - 1)) + "…"
    }

    /// A flame-graph box's label at its top left, cut to the box's width; nothing when fewer than
    /// four characters would fit (the box's `<title>` still names it).
    static func boxLabel(_ text: String, x: Double, y: Double, width: Double) -> Markup {
        let characters = characters(fitting: width - 8)
        guard characters >= 4 else { return "" }
        return "<text x=\"\(px: x + 4)\" y=\"\(px: y + 13)\">\(truncated(text, limit: characters))</text>"
    }

    /// Approximate number of characters of 11 px text that fit in `width` pixels.
    static func characters(fitting width: Double) -> Int { Swift.max(0, Int(width / 6.6)) }

    /// The opening tag of a chart, with an accessible name and a `<title>` (shown on hover).
    static func open(width: Double, height: Double, label: String) -> Markup {
        """
        <svg class="chart" viewBox="0 0 \(px: width) \(px: height)" \
        width="\(px: width)" height="\(px: height)" role="img" aria-label="\(label)"><title>\(label)</title>
        """
    }

    /// A horizontal axis at `y` with tick marks, labels and grid lines up to `gridTop`.
    static func horizontalAxis(
        _ scale: ChartScale, y: Double, gridTop: Double, format: (Double) -> String, caption: String? = nil
    ) -> Markup {
        var out: Markup = "<g class=\"axis\">"
        out += "<line x1=\"\(px: scale.pixelLower)\" x2=\"\(px: scale.pixelUpper)\" y1=\"\(px: y)\" y2=\"\(px: y)\"/>"
        for tick in scale.ticks() {
            let x = scale(tick)
            out += "<line class=\"grid\" x1=\"\(px: x)\" x2=\"\(px: x)\" y1=\"\(px: gridTop)\" y2=\"\(px: y)\"/>"
            out += "<text x=\"\(px: x)\" y=\"\(px: y + 14)\" text-anchor=\"middle\">\(format(tick))</text>"
        }
        if let caption {
            let middle = (scale.pixelLower + scale.pixelUpper) / 2
            out +=
                "<text class=\"caption\" x=\"\(px: middle)\" y=\"\(px: y + 28)\" text-anchor=\"middle\">\(caption)</text>"
        }
        out += "</g>"
        return out
    }

    /// A vertical axis at `x` with tick labels on the left and grid lines up to `gridRight`.
    static func verticalAxis(
        _ scale: ChartScale, x: Double, gridRight: Double, format: (Double) -> String
    ) -> Markup {
        var out: Markup = "<g class=\"axis\">"
        out += "<line x1=\"\(px: x)\" x2=\"\(px: x)\" y1=\"\(px: scale.pixelLower)\" y2=\"\(px: scale.pixelUpper)\"/>"
        for tick in scale.ticks() {
            let y = scale(tick)
            out += "<line class=\"grid\" x1=\"\(px: x)\" x2=\"\(px: gridRight)\" y1=\"\(px: y)\" y2=\"\(px: y)\"/>"
            out += "<text x=\"\(px: x - 6)\" y=\"\(px: y + 4)\" text-anchor=\"end\">\(format(tick))</text>"
        }
        out += "</g>"
        return out
    }

    /// A deterministic vertical jitter in [-1, 1] for the i-th point (golden-ratio sequence), so the
    /// same report always draws the same picture.
    static func jitter(_ index: Int) -> Double {
        let value = (Double(index) * 0.618_033_988_75).truncatingRemainder(dividingBy: 1)
        return value * 2 - 1
    }
}
