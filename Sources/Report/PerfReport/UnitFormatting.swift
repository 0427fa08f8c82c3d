import Foundation

/// Human-readable numbers with units, three significant digits: 812 ns, 1.23 µs, 45.6 ms, 2.00 s,
/// 512 B/s, 1.50 MiB/s, 3.20 M items/s.
public enum UnitFormatting {
    /// A time in nanoseconds, scaled to ns, µs, ms or s.
    public static func duration(nanoseconds: Double) -> String {
        guard nanoseconds.isFinite else { return "—" }
        let magnitude = abs(nanoseconds)
        if magnitude < 1e3 { return significant(nanoseconds) + " ns" }
        if magnitude < 1e6 { return significant(nanoseconds / 1e3) + " µs" }
        if magnitude < 1e9 { return significant(nanoseconds / 1e6) + " ms" }
        return significant(nanoseconds / 1e9) + " s"
    }

    /// A size in bytes with binary prefixes: B, KiB, MiB, GiB, TiB.
    public static func bytes(_ bytes: Double) -> String {
        binary(bytes, units: ["B", "KiB", "MiB", "GiB", "TiB"])
    }

    /// A rate in bytes per second with binary prefixes: B/s, KiB/s, MiB/s, GiB/s, TiB/s.
    public static func bytesPerSecond(_ rate: Double) -> String {
        binary(rate, units: ["B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s"])
    }

    /// A rate in items per second with decimal prefixes: items/s, k items/s, M items/s, G items/s.
    public static func itemsPerSecond(_ rate: Double) -> String {
        guard rate.isFinite else { return "—" }
        let prefixes = ["", "k ", "M ", "G ", "T "]
        var value = rate
        var index = 0
        while abs(value) >= 999.5, index < prefixes.count - 1 {
            value /= 1000
            index += 1
        }
        return significant(value) + " " + prefixes[index] + "items/s"
    }

    /// A compact axis label: a duration without trailing zeros ("10 ns", "2.5 µs").
    public static func durationTick(nanoseconds: Double) -> String {
        let text = duration(nanoseconds: nanoseconds)
        guard let space = text.firstIndex(of: " "), text[..<space].contains(".") else { return text }
        var number = String(text[..<space])
        while number.hasSuffix("0") { number.removeLast() }
        if number.hasSuffix(".") { number.removeLast() }
        return number + text[space...]
    }

    /// A compact axis label for sizes: 16, 256, 4k, 64k, 1M (decimal prefixes).
    public static func countTick(_ value: Double) -> String {
        guard value.isFinite else { return "—" }
        for (scale, suffix) in [(1e9, "G"), (1e6, "M"), (1e3, "k")] where abs(value) >= scale {
            let scaled = value / scale
            return (scaled == scaled.rounded() ? String(Int(scaled)) : String(format: "%.1f", scaled)) + suffix
        }
        return count(value)
    }

    /// A plain count such as allocations per operation: integers stay integers.
    public static func count(_ value: Double) -> String {
        guard value.isFinite else { return "—" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return significant(value)
    }

    /// A fraction as a percentage, e.g. 0.0345 → "3.45 %".
    public static func percent(_ fraction: Double) -> String {
        guard fraction.isFinite else { return "—" }
        return significant(fraction * 100) + " %"
    }

    /// A ratio of current to baseline as a signed change, e.g. 1.234 → "+23.4 %", 0.9 → "−10.0 %".
    public static func change(ratio: Double) -> String {
        guard ratio.isFinite else { return "—" }
        let percent = (ratio - 1) * 100
        let sign = percent > 0 ? "+" : (percent < 0 ? "−" : "±")
        let magnitude = abs(percent)
        return sign + String(format: magnitude >= 99.95 ? "%.0f" : "%.1f", magnitude) + " %"
    }

    /// Three significant digits, without scientific notation for the ranges used here.
    public static func significant(_ value: Double) -> String {
        guard value.isFinite else { return "—" }
        let magnitude = abs(value)
        let decimals: Int
        if magnitude == 0 || magnitude >= 99.95 {
            decimals = 0
        } else if magnitude >= 9.995 {
            decimals = 1
        } else if magnitude >= 0.9995 {
            decimals = 2
        } else {
            decimals = 3
        }
        return String(format: "%.\(decimals)f", value)
    }

    private static func binary(_ value: Double, units: [String]) -> String {
        guard value.isFinite else { return "—" }
        var scaled = value
        var index = 0
        while abs(scaled) >= 1023.5, index < units.count - 1 {
            scaled /= 1024
            index += 1
        }
        if index == 0, scaled == scaled.rounded() { return String(Int(scaled)) + " " + units[0] }
        return significant(scaled) + " " + units[index]
    }
}
