import ProbeRecords

/// Brendan Gregg's collapsed-stack ("folded") format, which `flamegraph.pl`, `inferno-flamegraph`
/// and speedscope read: one line per distinct stack, its frames root first joined by `;`, then a
/// space and the number of samples whose stack was exactly that one.
enum FoldedStacks {
    /// Every path as a line, sorted (as `stackcollapse` tools sort them), ending in a newline.
    /// Paths that print alike (two frames with the same name in different modules) are one line.
    static func render(_ paths: SampledPaths) -> String {
        let texts = paths.frames.map(frameText)
        var counts: [String: Int] = [:]
        for (path, weight) in zip(paths.paths, paths.weights) {
            counts[path.map { texts[$0] }.joined(separator: ";"), default: 0] += weight
        }
        return counts.keys.sorted().map { "\($0) \(counts[$0]!)\n" }.joined()
    }

    /// `name`, or `name (File.swift:12)` when the frame's place is known, made safe for the format.
    static func frameText(_ frame: ProfileFrame) -> String {
        var text = frame.name
        if let file = frame.file {
            let fileName = file.split(separator: "/").last.map(String.init) ?? file
            text += " (\(fileName)\(frame.line.map { ":\($0)" } ?? ""))"
        }
        return sanitised(text)
    }

    /// A frame name cannot hold the frame separator or end the line: `;` becomes `,` and control
    /// characters (newlines, tabs) become spaces. Demangled Swift names contain neither, but a
    /// C++ or hand-written symbol might.
    static func sanitised(_ name: String) -> String {
        guard name.unicodeScalars.contains(where: { $0 == ";" || $0.properties.generalCategory == .control }) else {
            return name
        }
        var result = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            if scalar == ";" {
                result.append(",")
            } else if scalar.properties.generalCategory == .control {
                result.append(" ")
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }
}
