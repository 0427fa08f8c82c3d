import Foundation
import PerfStatistics
import PixelArt

/// The PngSuite conformance images, committed as fixtures beside these tests (licence in
/// `Fixtures/pngsuite/LICENSE`), so a plain clone passes with nothing beside it.
let pngSuiteDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()
    .appendingPathComponent("Fixtures/pngsuite/png")

func pngSuiteFiles() throws -> [URL] {
    try FileManager.default.contentsOfDirectory(at: pngSuiteDirectory, includingPropertiesForKeys: nil)
        .filter { $0.pathExtension == "png" }
        .sorted { $0.lastPathComponent < $1.lastPathComponent }
}

func pngSuiteFile(_ name: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: pngSuiteDirectory.appendingPathComponent(name)))
}

/// A fresh empty directory for one test.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("pixelart-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A random image whose pixels are drawn from `colorCount` random colours.
func randomImage(
    width: Int, height: Int, format: PixelFormat, colorCount: Int = 16, using rng: inout SplitMix64
) throws -> Image {
    let bpp = format.bytesPerPixel
    let colors = (0..<colorCount).map { _ in (0..<bpp).map { _ in UInt8.random(in: 0...255, using: &rng) } }
    var pixels: [UInt8] = []
    pixels.reserveCapacity(width * height * bpp)
    for _ in 0..<width * height { pixels += colors.randomElement(using: &rng)! }
    return try Image(width: width, height: height, format: format, pixels: pixels)
}

/// The definition, pixel by pixel: destination (x, y) takes source
/// (floor((2x+1)·sw / (2·dw)), floor((2y+1)·sh / (2·dh))).
func referenceScale(_ image: Image, width: Int, height: Int) -> [UInt8] {
    let bpp = image.format.bytesPerPixel
    var out: [UInt8] = []
    out.reserveCapacity(width * height * bpp)
    for y in 0..<height {
        let sy = Int((Int64(2 * y + 1) * Int64(image.height)) / (Int64(2) * Int64(height)))
        for x in 0..<width {
            let sx = Int((Int64(2 * x + 1) * Int64(image.width)) / (Int64(2) * Int64(width)))
            out += image.pixel(x: sx, y: sy)
        }
    }
    return out
}

/// The distinct pixel values of an image (byte groups of `bytesPerPixel`).
func colorSet(_ image: Image) -> Set<[UInt8]> {
    let bpp = image.format.bytesPerPixel
    return Set(stride(from: 0, to: image.pixels.count, by: bpp).map { Array(image.pixels[$0..<$0 + bpp]) })
}

/// PNG chunk CRC (ISO 3309), for crafting test files.
func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) }
    }
    return ~crc
}

func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
}

/// One PNG chunk with a correct CRC.
func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let typeBytes = Array(type.utf8)
    return bigEndian(UInt32(data.count)) + typeBytes + data + bigEndian(crc32(typeBytes + data))
}

let pngSignature: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]

/// A PNG whose header claims `width` × `height` RGBA 8-bit, followed by a tiny (wrong) IDAT.
func craftedPNG(width: UInt32, height: UInt32) -> [UInt8] {
    let ihdr = bigEndian(width) + bigEndian(height) + [8, 6, 0, 0, 0]
    // A valid zlib stream of a few zero bytes, far fewer than the header promises.
    let idat: [UInt8] = [0x78, 0x9C, 0x63, 0x60, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01]
    return pngSignature + chunk("IHDR", ihdr) + chunk("IDAT", idat) + chunk("IEND", [])
}

/// Offsets of the chunks of a PNG: (offset of the length field, type, data length).
func chunks(of png: [UInt8]) -> [(offset: Int, type: String, length: Int)] {
    var result: [(Int, String, Int)] = []
    var offset = 8
    while offset + 8 <= png.count {
        let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        let type = String(decoding: png[offset + 4..<offset + 8], as: UTF8.self)
        result.append((offset, type, length))
        offset += 12 + length
    }
    return result
}
