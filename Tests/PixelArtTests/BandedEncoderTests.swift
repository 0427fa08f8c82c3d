import Foundation
import PixelArt
import Testing

/// The banded PNG writer: image data filtered and deflated in ~1 MiB bands on every core. The
/// contract is the pixels (decoded by libpng exactly as given) and bytes that never depend on the
/// thread count; identical bytes to libpng's own writer are not.
@Suite("Banded PNG writer")
struct BandedEncoderTests {
    static let bandedFilters: [PNG.Filter] = [.content, .adaptive, .none, .sub, .up, .average, .paeth]

    /// Deterministic pixel art: blocks of a few colours with stray pixels, scaled ×3 so rows repeat.
    static func pixelArt(width: Int, height: Int, format: PixelFormat, seed: UInt64) throws -> Image {
        var state = seed
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let limit: UInt64 = format.bitDepth >= 8 ? 256 : 1 << UInt64(format.bitDepth)
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * format.bytesPerPixel)
        let colours = (0..<6).map { _ in (0..<format.bytesPerPixel).map { _ in UInt8(next() % limit) } }
        for y in 0..<height {
            for x in 0..<width {
                let colour = next() % 40 == 0 ? Int(next() % 6) : (x / 7 + y / 5) % 6
                pixels += colours[colour]
            }
        }
        let palette =
            format.colorType == .indexed
            ? (0..<Int(limit)).map { PaletteEntry(red: UInt8($0 & 255), green: 7, blue: UInt8(255 - $0 & 255)) } : []
        let image = try Image(width: width, height: height, format: format, pixels: pixels, palette: palette)
        return try image.scaled(to: .factor(3))
    }

    static let formats: [(ColorType, Int)] = [
        (.gray, 1), (.gray, 2), (.gray, 4), (.gray, 8), (.gray, 16), (.grayAlpha, 8), (.grayAlpha, 16),
        (.rgb, 8), (.rgb, 16), (.rgba, 8), (.rgba, 16), (.indexed, 1), (.indexed, 4), (.indexed, 8),
    ]

    @Test(arguments: bandedFilters)
    func everyFormatDecodesToItsPixels(filter: PNG.Filter) throws {
        for (type, bits) in Self.formats {
            let image = try Self.pixelArt(
                width: 37, height: 23, format: try PixelFormat(type, bitDepth: bits), seed: UInt64(bits))
            let back = try PNG.decode(try PNG.encode(image, filter: filter))
            #expect(back == image, "\(type) \(bits)-bit, \(filter)")
        }
    }

    /// Several bands (so the dictionary priming and the combined adler32 matter), at every level,
    /// and the same bytes on one thread as on all of them.
    @Test(arguments: [0, 1, 6, 9])
    func manyBandsRoundTripAndDoNotDependOnThreads(level: Int) throws {
        let image = try Self.pixelArt(
            width: 400, height: 300, format: try PixelFormat(.rgba, bitDepth: 8), seed: 42)  // 1200×900, ~4.3 MB
        let parallel = try PNG.encode(image, compressionLevel: level, threads: 0)
        let single = try PNG.encode(image, compressionLevel: level, threads: 1)
        let three = try PNG.encode(image, compressionLevel: level, threads: 3)
        #expect(parallel == single)
        #expect(three == single)
        #expect(try PNG.decode(parallel) == image)
    }

    /// Sizes and formats drawn from a fixed seed (the same every run), scaled by drawn factors,
    /// round-tripped: odd widths, one-pixel sides, bands that end mid-run.
    @Test func drawnSizesAndFactorsRoundTrip() throws {
        var state: UInt64 = 0xBA4D
        func draw(_ range: ClosedRange<Int>) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return range.lowerBound + Int(state >> 33) % (range.count)
        }
        for _ in 0..<12 {
            let (type, bits) = Self.formats[draw(0...(Self.formats.count - 1))]
            let width = draw(1...500)
            let height = draw(1...300)
            let source = try Self.pixelArt(
                width: width, height: height, format: try PixelFormat(type, bitDepth: bits), seed: UInt64(width))
            let factor = [1.0, 1.5, 2.0, 2.5, 4.0][draw(0...4)]
            let image = try source.scaled(to: .factor(factor))
            #expect(try PNG.decode(try PNG.encode(image)) == image, "\(type) \(bits)-bit \(width)×\(height) ×\(factor)")
        }
    }

    /// A row longer than a band (one row per band) and a 1-bit image whose bands hold many rows.
    @Test func extremeShapes() throws {
        let wide = try Image(
            width: 300_000, height: 3, format: try PixelFormat(.rgba, bitDepth: 8),
            pixels: (0..<(300_000 * 3 * 4)).map { UInt8(truncatingIfNeeded: $0 / 5 &* 31) })
        #expect(try PNG.decode(try PNG.encode(wide)) == wide)
        let tall = try Self.pixelArt(width: 3000, height: 1000, format: try PixelFormat(.gray, bitDepth: 1), seed: 9)
        #expect(try PNG.decode(try PNG.encode(tall, threads: 2)) == tall)
    }

    /// Content-aware filtering keeps the size of libpng's adaptive choice or better on upscaled
    /// pixel art, where every repeated row becomes zeros.
    @Test func contentFilteringIsNoLargerThanLibpngsOnAnUpscale() throws {
        let image = try Self.pixelArt(width: 300, height: 200, format: try PixelFormat(.rgba, bitDepth: 8), seed: 5)
        let content = try PNG.encode(image, filter: .content)
        let libpng = try PNG.encode(image, filter: .automatic)
        #expect(content.count <= libpng.count * 105 / 100, "content \(content.count) B vs libpng \(libpng.count) B")
    }
}
