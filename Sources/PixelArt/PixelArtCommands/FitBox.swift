import ArgumentParser

/// The value of `scale --fit WxH` (`512x512`, `x` in either case): the box the output must fit in.
/// A value of another shape is argument-parser's one-line error naming `--fit <WxH>`.
struct FitBox: ExpressibleByArgument {
    var width: Int
    var height: Int

    init?(argument: String) {
        let sides = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard sides.count == 2, let width = Int(sides[0]), let height = Int(sides[1]) else { return nil }
        self.width = width
        self.height = height
    }

    var defaultValueDescription: String { "\(width)x\(height)" }
}
