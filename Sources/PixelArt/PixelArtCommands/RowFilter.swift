import ArgumentParser
import Foundation
import PixelArt

/// The value of `scale --filter`: how the PNG writer filters each row before deflate. Help lists
/// every value with what it does, and an unknown one's error lists them all.
enum RowFilter: String, ExpressibleByArgument, CaseIterable {
    case content, adaptive, none, sub, up, average, paeth, libpng, auto, all

    var pngFilter: PNG.Filter {
        switch self {
        case .content: .content
        case .adaptive: .adaptive
        case .none: .none
        case .sub: .sub
        case .up: .up
        case .average: .average
        case .paeth: .paeth
        case .libpng, .auto: .automatic
        case .all: .all
        }
    }

    /// What each value does, for help: argument-parser lists them under `--filter`.
    static var allValueDescriptions: [String: String] {
        var descriptions = [
            "content": "A row that repeats the one above or whose pixels repeat across (an upscale's rows) is Up; "
                + "any other row gets libpng's heuristic.",
            "adaptive": "libpng's heuristic on every row.",
            "libpng": "libpng's own writer and filter choice, on one thread.",
            "auto": "The same as libpng.",
            "all": "libpng's own writer with every filter allowed, on one thread.",
        ]
        for single in [RowFilter.none, .sub, .up, .average, .paeth] {
            descriptions[single.rawValue] = "The \(single.rawValue.capitalized) filter on every row."
        }
        return descriptions
    }
}
