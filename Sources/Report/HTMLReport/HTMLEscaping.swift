/// Escaping for HTML text, attribute values and inline SVG (which the HTML parser reads the same way).
enum HTMLEscaping {
    /// Escapes `&`, `<`, `>`, `"` and `'`, and replaces control characters (other than tab and
    /// newline) with U+FFFD so that a report cannot smuggle anything the parser would act on.
    static func escape<S: StringProtocol>(_ string: S) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(string.unicodeScalars.count)
        for scalar in string.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\t", "\n": result.unicodeScalars.append(scalar)
            case "\r": result += "\n"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                    result.unicodeScalars.append("\u{FFFD}")
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// A coordinate rounded to 0.1, never `NaN`/`inf` (those become 0) and without a trailing ".0".
    static func coordinate(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 10).rounded() / 10
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int(rounded)) }
        return "\(rounded)"
    }
}
