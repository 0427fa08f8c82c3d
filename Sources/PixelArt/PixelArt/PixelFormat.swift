/// How the samples of a pixel are interpreted, as in PNG's colour types.
public enum ColorType: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case gray
    case grayAlpha
    case rgb
    case rgba
    /// Each pixel is an index into the image's palette.
    case indexed

    public var channels: Int {
        switch self {
        case .gray, .indexed: 1
        case .grayAlpha: 2
        case .rgb: 3
        case .rgba: 4
        }
    }

    public var description: String {
        switch self {
        case .gray: "gray"
        case .grayAlpha: "gray+alpha"
        case .rgb: "RGB"
        case .rgba: "RGBA"
        case .indexed: "indexed"
        }
    }
}

/// A colour type and bit depth, with the in-memory layout PixelArt uses for it.
///
/// Layout: samples of 1-, 2- and 4-bit images are stored one per byte (values stay in
/// `0..<2^bitDepth`, they are not stretched to 8 bits), so every pixel is a whole number of bytes and
/// scaling can copy pixels without bit shuffling; PNG encoding packs them again. 16-bit samples are
/// stored big-endian, as in PNG, because scaling never looks inside a pixel.
public struct PixelFormat: Sendable, Hashable, CustomStringConvertible {
    public let colorType: ColorType
    public let bitDepth: Int

    /// Only the combinations PNG allows: gray 1/2/4/8/16, indexed 1/2/4/8, the others 8/16.
    public init(_ colorType: ColorType, bitDepth: Int) throws(PixelArtError) {
        let allowed: [Int] =
            switch colorType {
            case .gray: [1, 2, 4, 8, 16]
            case .indexed: [1, 2, 4, 8]
            case .grayAlpha, .rgb, .rgba: [8, 16]
            }
        guard allowed.contains(bitDepth) else {
            throw .invalidImage("\(colorType) images cannot have \(bitDepth)-bit samples")
        }
        self.colorType = colorType
        self.bitDepth = bitDepth
    }

    private init(unchecked colorType: ColorType, _ bitDepth: Int) {
        self.colorType = colorType
        self.bitDepth = bitDepth
    }

    public static let gray8 = PixelFormat(unchecked: .gray, 8)
    public static let grayAlpha8 = PixelFormat(unchecked: .grayAlpha, 8)
    public static let rgb8 = PixelFormat(unchecked: .rgb, 8)
    public static let rgba8 = PixelFormat(unchecked: .rgba, 8)
    public static let rgba16 = PixelFormat(unchecked: .rgba, 16)
    public static let indexed8 = PixelFormat(unchecked: .indexed, 8)

    public var channels: Int { colorType.channels }
    public var bytesPerSample: Int { bitDepth == 16 ? 2 : 1 }
    public var bytesPerPixel: Int { channels * bytesPerSample }

    public var description: String { "\(colorType) \(bitDepth)-bit" }
}

/// One palette colour; `alpha` comes from the tRNS chunk (255 when the entry has none).
public struct PaletteEntry: Sendable, Hashable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public var alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }
}
