/// Why a PixelArt operation failed, as one line without a file name (callers that know the file
/// prefix it: "in.png: not a valid PNG: IDAT: CRC error").
public enum PixelArtError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not a PNG libpng accepts (bad signature, CRC, zlib stream, header, truncation).
    case invalidPNG(String)
    /// The image has more pixels than the configured limit; found before any pixel memory is allocated.
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// An image description that cannot be valid (buffer size, bit depth, palette index, …).
    case invalidImage(String)
    /// A scale factor or target size that is zero, negative, NaN, or too large.
    case invalidScale(String)
    /// libpng refused to encode the image.
    case encodingFailed(String)
    /// Reading or writing a file failed.
    case io(String)

    public var description: String {
        switch self {
        case .invalidPNG(let problem): "not a valid PNG: \(problem)"
        case .tooManyPixels(let width, let height, let limit):
            "image is \(width)×\(height) = \(width.multipliedReportingOverflow(by: height).partialValue) pixels, "
                + "more than the limit of \(limit) (raise it with --max-pixels)"
        case .invalidImage(let problem): "invalid image: \(problem)"
        case .invalidScale(let problem): "invalid scale: \(problem)"
        case .encodingFailed(let problem): "cannot encode PNG: \(problem)"
        case .io(let problem): problem
        }
    }
}
