/// What size a scaled image should have.
public enum ScaleTarget: Sendable, Hashable, CustomStringConvertible {
    /// Both sides multiplied by `factor` (rounded to the nearest pixel). Whole factors such as 2, 3,
    /// 4 take the replicate-and-copy fast path.
    case factor(Double)
    /// Width and height multiplied by separate factors.
    case factors(x: Double, y: Double)
    /// An exact output size; the aspect ratio may change.
    case size(width: Int, height: Int)
    /// The largest size inside the box that keeps the aspect ratio, preferring whole factors: an
    /// image that fits k times is scaled by the integer k (crisp pixel art, possibly leaving a
    /// margin); one that must shrink uses 1/k when an integer k divides both sides and fits,
    /// otherwise the exact aspect-preserving size that touches the box.
    case fit(width: Int, height: Int)

    public var description: String {
        switch self {
        case .factor(let f): "×\(f)"
        case .factors(let x, let y): "×\(x) by ×\(y)"
        case .size(let w, let h): "\(w)×\(h)"
        case .fit(let w, let h): "fit in \(w)×\(h)"
        }
    }

    /// The output size for a `width` × `height` source.
    public func outputSize(width: Int, height: Int) throws(PixelArtError) -> (width: Int, height: Int) {
        guard width > 0, height > 0 else { throw .invalidScale("source size \(width)×\(height) is empty") }
        let result: (width: Int, height: Int)
        switch self {
        case .factor(let f):
            result = (try Self.scaled(width, by: f), try Self.scaled(height, by: f))
        case .factors(let x, let y):
            result = (try Self.scaled(width, by: x), try Self.scaled(height, by: y))
        case .size(let w, let h):
            result = (w, h)
        case .fit(let w, let h):
            guard w > 0, h > 0 else { throw .invalidScale("box \(w)×\(h) must be at least 1×1") }
            result = Self.fit(width: width, height: height, boxWidth: w, boxHeight: h)
        }
        guard result.width > 0, result.height > 0 else {
            throw .invalidScale("output size \(result.width)×\(result.height) is empty")
        }
        guard result.width <= Image.maxDimension, result.height <= Image.maxDimension else {
            throw .invalidScale("output size \(result.width)×\(result.height) exceeds \(Image.maxDimension) per side")
        }
        return result
    }

    private static func scaled(_ side: Int, by factor: Double) throws(PixelArtError) -> Int {
        guard factor.isFinite, factor > 0 else { throw .invalidScale("factor \(factor) must be a positive number") }
        let exact = Double(side) * factor
        guard exact < Double(Image.maxDimension) + 0.5 else {
            throw .invalidScale("factor \(factor) makes a side of \(side) pixels too large (\(exact))")
        }
        let rounded = Int(exact.rounded())
        guard rounded >= 1 else {
            throw .invalidScale("factor \(factor) makes a side of \(side) pixels vanish")
        }
        return rounded
    }

    static func fit(width: Int, height: Int, boxWidth: Int, boxHeight: Int) -> (width: Int, height: Int) {
        let k = min(boxWidth / width, boxHeight / height)
        if k >= 1 { return (width * k, height * k) }
        // Shrinking: the smallest divisor that fits, if it divides both sides exactly.
        let divisor = max((width + boxWidth - 1) / boxWidth, (height + boxHeight - 1) / boxHeight)
        if width % divisor == 0, height % divisor == 0 { return (width / divisor, height / divisor) }
        // Otherwise the side that limits touches the box; the other keeps the ratio (rounded, ≥ 1).
        // Products of values below 2^31 fit in 64 bits.
        if width * boxHeight >= height * boxWidth {
            return (boxWidth, max(1, (2 * height * boxWidth + width) / (2 * width)))
        } else {
            return (max(1, (2 * width * boxHeight + height) / (2 * height)), boxHeight)
        }
    }
}
