import Foundation
import PixelArt
import Testing
import PerfStatistics

@Suite("Decoder and writer safety")
struct SafetyTests {
    /// 100000 × 100000 RGBA would need 40 GB; the header check must refuse it before allocating.
    @Test func hugeHeaderIsRefusedBeforeAllocation() throws {
        let png = craftedPNG(width: 100_000, height: 100_000)
        #expect(throws: PixelArtError.tooManyPixels(width: 100_000, height: 100_000, limit: PNG.defaultMaxPixels)) {
            try PNG.decode(png)
        }
        // PNG's largest legal size, too.
        let largest = craftedPNG(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF)
        #expect(throws: PixelArtError.tooManyPixels(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF, limit: 1 << 40)) {
            try PNG.decode(largest, maxPixels: 1 << 40)
        }
    }

    @Test func maxPixelsIsConfigurable() throws {
        let png = try pngSuiteFile("basn6a08.png")  // 32 × 32
        #expect(throws: PixelArtError.tooManyPixels(width: 32, height: 32, limit: 1023)) {
            try PNG.decode(png, maxPixels: 1023)
        }
        #expect(try PNG.decode(png, maxPixels: 1024).width == 32)
    }

    @Test func zeroAndOverlongDimensionsAreErrors() throws {
        for (w, h) in [(0, 10), (10, 0), (0x8000_0000, 1)] as [(UInt32, UInt32)] {
            #expect(throws: PixelArtError.self, "\(w)×\(h)") { try PNG.decode(craftedPNG(width: w, height: h)) }
        }
    }

    @Test func truncatedFilesAreErrors() throws {
        let png = try pngSuiteFile("basn2c08.png")
        for length in [0, 1, 7, 8, 20, 33, 50, png.count / 2, png.count - 13, png.count - 1] {
            #expect(throws: PixelArtError.self, "truncated to \(length)") { try PNG.decode(Array(png.prefix(length))) }
        }
    }

    @Test func badCRCsAreErrors() throws {
        let png = try pngSuiteFile("basn2c08.png")
        for chunk in chunks(of: png) where ["IHDR", "IDAT", "IEND"].contains(chunk.type) {
            var broken = png
            broken[chunk.offset + 8 + chunk.length] ^= 0x01  // first CRC byte
            #expect(throws: PixelArtError.self, "bad \(chunk.type) CRC") { try PNG.decode(broken) }
        }
    }

    @Test func badZlibStreamIsAnError() throws {
        let png = try pngSuiteFile("basn2c08.png")
        let idat = try #require(chunks(of: png).first { $0.type == "IDAT" })
        var data = Array(png[idat.offset + 8..<idat.offset + 8 + idat.length])
        data[0] = 0x77  // an invalid zlib header
        var broken = Array(png[..<idat.offset]) + chunk("IDAT", data)
        broken += png[(idat.offset + 12 + idat.length)...]
        #expect(throws: PixelArtError.self) { try PNG.decode(broken) }
        #expect(throws: PixelArtError.self) { try PNG.decode(Array(repeating: 0x42, count: 100)) }
    }

    /// A few thousand mutations of valid files (bit flips, truncations, chunk length changes):
    /// each decodes or throws, and a decoded image is consistent.
    @Test func fuzzedFilesNeverCrash() throws {
        var rng = SplitMix64(seed: 2024)
        let seeds = try [
            "basn0g01.png", "basi3p04.png", "basn6a16.png", "tbrn2c08.png", "basi2c08.png", "s09n3p02.png",
        ]
        .map(pngSuiteFile)
        var decoded = 0
        var rejected = 0
        for round in 0..<3000 {
            var png = seeds[round % seeds.count]
            switch round % 3 {
            case 0:
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    png[Int.random(in: 0..<png.count, using: &rng)] ^= 1 << UInt8.random(in: 0...7, using: &rng)
                }
            case 1:
                png = Array(png.prefix(Int.random(in: 0..<png.count, using: &rng)))
            default:
                let list = chunks(of: png)
                let target = list[Int.random(in: 0..<list.count, using: &rng)]
                let length = UInt32(truncatingIfNeeded: target.length + Int.random(in: -20...20, using: &rng))
                png.replaceSubrange(target.offset..<target.offset + 4, with: bigEndian(length))
            }
            do {
                let image = try PNG.decode(png)
                #expect(image.pixels.count == image.width * image.height * image.format.bytesPerPixel)
                decoded += 1
            } catch {
                #expect(!error.description.isEmpty)
                rejected += 1
            }
        }
        #expect(rejected > 1000)
        #expect(decoded + rejected == 3000)
    }

    @Test func writtenFilesReadBack() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let image = try PNG.decode(try pngSuiteFile("basn3p02.png"))
        let path = directory.appendingPathComponent("out.png").path
        try PNG.write(image, to: path, compressionLevel: 9)
        #expect(try PNG.read(path: path) == image)
        // Replacing an existing file works and leaves nothing else behind.
        try PNG.write(try image.scaled(to: .factor(2)), to: path)
        #expect(try PNG.read(path: path).width == image.width * 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.png"])
    }

    @Test func failedWritesLeaveNoFile() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let image = try PNG.decode(try pngSuiteFile("basn6a08.png"))
        // The target is a non-empty directory: the rename fails after the data was written.
        let blocker = directory.appendingPathComponent("taken.png")
        try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: false)
        try Data([1]).write(to: blocker.appendingPathComponent("keep"))
        #expect(throws: PixelArtError.self) { try PNG.write(image, to: blocker.path) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["taken.png"])
        // A directory that does not exist.
        let missing = directory.appendingPathComponent("no/such/dir/out.png").path
        #expect(throws: PixelArtError.self) { try PNG.write(image, to: missing) }
        // An invalid compression level fails before anything is created.
        let out = directory.appendingPathComponent("out.png")
        #expect(throws: PixelArtError.self) { try PNG.write(image, to: out.path, compressionLevel: 12) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["taken.png"])
    }

    @Test func readingMissingOrNonFilesIsAnError() throws {
        #expect(throws: PixelArtError.self) { try PNG.read(path: "/nonexistent/file.png") }
        #expect(throws: PixelArtError.self) { try PNG.read(path: "/tmp") }
    }
}
