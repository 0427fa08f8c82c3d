/// A raster image in its source pixel format (see `PixelFormat` for the byte layout).
///
/// Rows are stored top to bottom with no padding: `bytesPerRow == width * format.bytesPerPixel`.
/// Indexed images carry their palette; gray and RGB images may carry a transparent colour key
/// (PNG's tRNS). Values are checked when the image is made, so every `Image` can be encoded.
public struct Image: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let format: PixelFormat
    public internal(set) var pixels: [UInt8]
    /// Non-empty exactly for indexed images.
    public internal(set) var palette: [PaletteEntry]
    /// The tRNS colour key of a gray (1 sample) or RGB (3 samples) image.
    public internal(set) var transparentKey: [UInt16]?

    /// The largest width or height PNG can express.
    public static let maxDimension = Int(Int32.max)

    /// Makes an image from raw pixels (for example a caller's own buffer), checking that the buffer
    /// size, palette, sample values and transparency key fit the format.
    public init(
        width: Int, height: Int, format: PixelFormat, pixels: [UInt8], palette: [PaletteEntry] = [],
        transparentKey: [UInt16]? = nil
    ) throws(PixelArtError) {
        let bytes = try Image.byteCount(width: width, height: height, format: format)
        guard pixels.count == bytes else {
            throw .invalidImage("\(width)×\(height) \(format) needs \(bytes) bytes of pixels, got \(pixels.count)")
        }
        if format.colorType == .indexed {
            guard !palette.isEmpty, palette.count <= 1 << format.bitDepth else {
                throw .invalidImage(
                    "a \(format.bitDepth)-bit indexed image needs 1…\(1 << format.bitDepth) palette entries, "
                        + "got \(palette.count)")
            }
            if let bad = pixels.first(where: { Int($0) >= palette.count }) {
                throw .invalidImage("palette index \(bad) is beyond the \(palette.count)-entry palette")
            }
        } else {
            guard palette.isEmpty else { throw .invalidImage("only indexed images have a palette") }
            if format.bitDepth < 8, let bad = pixels.first(where: { Int($0) >= 1 << format.bitDepth }) {
                throw .invalidImage("sample value \(bad) does not fit in \(format.bitDepth) bits")
            }
        }
        if let transparentKey {
            let samples: Int? =
                switch format.colorType {
                case .gray: 1
                case .rgb: 3
                default: nil
                }
            guard let samples, transparentKey.count == samples else {
                throw .invalidImage("a transparent colour key is only for gray (1 sample) or RGB (3 samples)")
            }
            guard transparentKey.allSatisfy({ Int($0) < 1 << format.bitDepth }) else {
                throw .invalidImage("transparent colour key does not fit in \(format.bitDepth) bits")
            }
        }
        self.init(
            unchecked: width, height: height, format: format, pixels: pixels, palette: palette,
            transparentKey: transparentKey)
    }

    /// For pixels that come from a trusted source (the decoder, the scaler).
    init(
        unchecked width: Int, height: Int, format: PixelFormat, pixels: [UInt8], palette: [PaletteEntry],
        transparentKey: [UInt16]?
    ) {
        self.width = width
        self.height = height
        self.format = format
        self.pixels = pixels
        self.palette = palette
        self.transparentKey = transparentKey
    }

    public var bytesPerRow: Int { width * format.bytesPerPixel }

    /// The bytes of the pixel at (x, y), `format.bytesPerPixel` of them.
    public func pixel(x: Int, y: Int) -> ArraySlice<UInt8> {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) is outside the image")
        let start = y * bytesPerRow + x * format.bytesPerPixel
        return pixels[start..<start + format.bytesPerPixel]
    }

    /// The size in bytes of a `width` × `height` image, with overflow and PNG's limits checked.
    static func byteCount(width: Int, height: Int, format: PixelFormat) throws(PixelArtError) -> Int {
        guard width > 0, height > 0 else { throw .invalidImage("size \(width)×\(height) is empty") }
        guard width <= maxDimension, height <= maxDimension else {
            throw .invalidImage("size \(width)×\(height) exceeds PNG's limit of \(maxDimension) per side")
        }
        let (row, rowOverflow) = width.multipliedReportingOverflow(by: format.bytesPerPixel)
        let (total, totalOverflow) = row.multipliedReportingOverflow(by: height)
        guard !rowOverflow, !totalOverflow else { throw .invalidImage("size \(width)×\(height) is too large") }
        return total
    }
}
