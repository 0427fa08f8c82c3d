import ArgumentParser
import PixelArt

/// The size `scale` makes its outputs: by a factor, to an exact size, or to fit a box; exactly
/// one of them.
struct ScaleTargetOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Scale both sides by K (whole factors take the fast path).", valueName: "K"))
    var factor: Double?

    @Option(help: ArgumentHelp("Output width (with --height).", valueName: "pixels"))
    var width: Int?

    @Option(help: ArgumentHelp("Output height (with --width).", valueName: "pixels"))
    var height: Int?

    @Option(
        help: ArgumentHelp(
            "Largest size inside a WxH box keeping the aspect ratio, preferring whole factors.", valueName: "WxH"))
    var fit: FitBox?

    func validate() throws {
        let modes = [factor != nil, width != nil || height != nil, fit != nil].filter { $0 }.count
        guard modes == 1 else { throw ValidationError("give exactly one of --factor, --width/--height, --fit") }
        if (width == nil) != (height == nil) { throw ValidationError("--width and --height go together") }
    }

    /// The size asked for; `validate()` made sure there is exactly one.
    var target: ScaleTarget {
        if let factor { return .factor(factor) }
        if let width, let height { return .size(width: width, height: height) }
        return .fit(width: fit!.width, height: fit!.height)
    }
}
