import Foundation

/// Human-readable numbers for tables and summaries.
public enum UnitFormat {
    /// A duration given in ns, in the largest unit that keeps it ≥ 1 (ns, µs, ms, s).
    public static func duration(_ nanoseconds: Double) -> String {
        let magnitude = abs(nanoseconds)
        if magnitude < 1e3 { return String(format: "%.2f ns", nanoseconds) }
        if magnitude < 1e6 { return String(format: "%.2f µs", nanoseconds / 1e3) }
        if magnitude < 1e9 { return String(format: "%.2f ms", nanoseconds / 1e6) }
        return String(format: "%.2f s", nanoseconds / 1e9)
    }

    /// A rate in units per second with binary prefixes for bytes and decimal ones for items.
    public static func rate(_ perSecond: Double, bytes: Bool) -> String {
        if bytes {
            let units = ["B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s"]
            var value = perSecond
            var unit = 0
            while value >= 1024 && unit < units.count - 1 {
                value /= 1024
                unit += 1
            }
            return String(format: "%.2f %@", value, units[unit])
        }
        let units = ["items/s", "K items/s", "M items/s", "G items/s"]
        var value = perSecond
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return String(format: "%.2f %@", value, units[unit])
    }

    public static func percent(_ fraction: Double, digits: Int = 1) -> String {
        String(format: "%.\(digits)f%%", fraction * 100)
    }

    /// A signed change from a ratio: 1.123 → "+12.3%".
    public static func change(ratio: Double) -> String {
        String(format: "%+.1f%%", (ratio - 1) * 100)
    }
}
