import PixelArt
import Testing
import PerfStatistics

@Suite("Nearest-neighbour scaling")
struct ScalingTests {
    /// Hand-computed: floor((2d + 1) · src / (2 · dst)).
    @Test func sourceIndexFollowsPixelCentres() {
        func map(_ source: Int, _ destination: Int) -> [Int] {
            (0..<destination).map { NearestNeighbor.sourceIndex($0, source: source, destination: destination) }
        }
        #expect(map(2, 4) == [0, 0, 1, 1])
        #expect(map(3, 5) == [0, 0, 1, 2, 2])
        #expect(map(5, 3) == [0, 2, 4])
        // 4 → 2: destination centre 0.5 maps to source 1.0 exactly; at a tie the higher pixel wins.
        #expect(map(4, 2) == [1, 3])
        #expect(map(3, 1) == [1])
        #expect(map(1, 3) == [0, 0, 0])
        // Exact on sizes where (d + 0.5) · src / dst in Double would round the wrong way.
        let big = 2_000_000_000
        #expect(NearestNeighbor.sourceIndex(big - 1, source: big - 1, destination: big) == big - 2)
    }

    @Test func twoByTwoGrayDoubles() throws {
        let image = try Image(width: 2, height: 2, format: .gray8, pixels: [1, 2, 3, 4])
        let scaled = try image.scaled(to: .factor(2))
        #expect(scaled.width == 4 && scaled.height == 4)
        #expect(
            scaled.pixels == [
                1, 1, 2, 2,
                1, 1, 2, 2,
                3, 3, 4, 4,
                3, 3, 4, 4,
            ])
    }

    @Test func threeByOneRGBToFiveByTwo() throws {
        let image = try Image(
            width: 3, height: 1, format: .rgb8, pixels: [10, 11, 12, 20, 21, 22, 30, 31, 32])
        let scaled = try image.scaled(width: 5, height: 2)
        let row: [UInt8] = [10, 11, 12, 10, 11, 12, 20, 21, 22, 30, 31, 32, 30, 31, 32]
        #expect(scaled.pixels == row + row)
    }

    @Test func fiveByThreeDownToThreeByTwo() throws {
        let image = try Image(width: 5, height: 3, format: .gray8, pixels: Array(0..<15))
        // x: [0, 2, 4]; y: 3 → 2 gives [0, 2].
        #expect(try image.scaled(width: 3, height: 2).pixels == [0, 2, 4, 10, 12, 14])
    }

    @Test func differentFactorsPerAxis() throws {
        let image = try Image(width: 2, height: 2, format: .gray8, pixels: [1, 2, 3, 4])
        let scaled = try image.scaled(to: .factors(x: 3, y: 0.5))
        #expect(scaled.width == 6 && scaled.height == 1)
        // 2 → 1 rows: centre 0.5 → source 1.0, the tie goes to row 1.
        #expect(scaled.pixels == [3, 3, 3, 4, 4, 4])
    }

    static let formats: [PixelFormat] = [
        .gray8, try! PixelFormat(.gray, bitDepth: 16), .rgb8, .rgba8, try! PixelFormat(.rgb, bitDepth: 16), .rgba16,
        .grayAlpha8,
    ]

    /// Every path of the kernel (same size, whole factors, arbitrary maps, up and down, single and
    /// multi-threaded) against the pixel-by-pixel definition, on random sizes.
    @Test(arguments: formats)
    func fastPathsMatchTheReference(format: PixelFormat) throws {
        var rng = SplitMix64(seed: UInt64(format.bytesPerPixel * 1000 + format.channels))
        for round in 0..<60 {
            let width = Int.random(in: 1...40, using: &rng)
            let height = Int.random(in: 1...40, using: &rng)
            let image = try randomImage(width: width, height: height, format: format, using: &rng)
            let (newWidth, newHeight): (Int, Int)
            switch round % 4 {
            case 0:
                let k = Int.random(in: 1...9, using: &rng)
                (newWidth, newHeight) = (width * k, height * k)
            case 1:
                (newWidth, newHeight) = (
                    width * Int.random(in: 1...5, using: &rng), Int.random(in: 1...90, using: &rng)
                )
            default:
                (newWidth, newHeight) = (Int.random(in: 1...90, using: &rng), Int.random(in: 1...90, using: &rng))
            }
            let expected = referenceScale(image, width: newWidth, height: newHeight)
            #expect(try image.scaled(width: newWidth, height: newHeight).pixels == expected)
            for threads in [1, 2, 3, 7] {
                var destination = try Image(
                    width: newWidth, height: newHeight, format: format,
                    pixels: [UInt8](repeating: 0, count: expected.count))
                try Image.scale(image, into: &destination, threads: threads)
                #expect(
                    destination.pixels == expected, "\(width)×\(height) → \(newWidth)×\(newHeight), \(threads) bands")
            }
        }
    }

    /// Large enough to take the multi-core path on its own; the first two also take the streaming-store path.
    @Test func largeImageSplitAcrossCoresMatchesTheReference() throws {
        var rng = SplitMix64(seed: 42)
        let image = try randomImage(width: 300, height: 200, format: .rgba8, using: &rng)
        for (w, h) in [(1200, 900), (1200, 1200), (1000, 777), (150, 1900)] {
            let scaled = try image.scaled(width: w, height: h)
            #expect(scaled.pixels == referenceScale(image, width: w, height: h))
        }
    }

    /// Raw buffers with odd addresses and row padding (the byte-wise paths).
    @Test func unalignedRawBuffersWithPaddingMatchTheReference() throws {
        var rng = SplitMix64(seed: 99)
        let image = try randomImage(width: 13, height: 7, format: .rgba8, using: &rng)
        for (w, h) in [(39, 21), (20, 11), (5, 3)] {
            let sourceRowBytes = 13 * 4 + 3
            let destinationRowBytes = w * 4 + 5
            var source = [UInt8](repeating: 0, count: 1 + 7 * sourceRowBytes)
            for y in 0..<7 {
                source[1 + y * sourceRowBytes..<1 + y * sourceRowBytes + 52] = image.pixels[y * 52..<(y + 1) * 52]
            }
            var destination = [UInt8](repeating: 0, count: 1 + h * destinationRowBytes)
            source.withUnsafeBytes { input in
                destination.withUnsafeMutableBytes { output in
                    NearestNeighbor.scale(
                        source: input.baseAddress! + 1, sourceWidth: 13, sourceHeight: 7,
                        sourceRowBytes: sourceRowBytes,
                        destination: output.baseAddress! + 1, destinationWidth: w, destinationHeight: h,
                        destinationRowBytes: destinationRowBytes, bytesPerPixel: 4)
                }
            }
            var rows: [UInt8] = []
            for y in 0..<h { rows += destination[1 + y * destinationRowBytes..<1 + y * destinationRowBytes + w * 4] }
            #expect(rows == referenceScale(image, width: w, height: h), "\(w)×\(h)")
        }
    }

    @Test func coloursAreASubsetOfTheInput() throws {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<20 {
            let image = try randomImage(
                width: Int.random(in: 1...50, using: &rng), height: Int.random(in: 1...50, using: &rng), format: .rgba8,
                colorCount: 5, using: &rng)
            let scaled = try image.scaled(
                width: Int.random(in: 1...120, using: &rng), height: Int.random(in: 1...120, using: &rng))
            #expect(colorSet(scaled).isSubset(of: colorSet(image)))
        }
    }

    @Test func paletteSurvivesDecodeScaleEncodeDecode() throws {
        for name in ["basn3p01.png", "basn3p04.png", "basn3p08.png", "tbbn3p08.png", "s05n3p02.png"] {
            let image = try PNG.decode(try pngSuiteFile(name))
            let scaled = try image.scaled(to: .factor(3))
            let back = try PNG.decode(try PNG.encode(scaled))
            #expect(back.format == image.format, "\(name)")
            #expect(back.palette == image.palette, "\(name)")
            #expect(back.pixels == referenceScale(image, width: image.width * 3, height: image.height * 3), "\(name)")
            #expect(Set(back.pixels).isSubset(of: Set(image.pixels)), "\(name)")
        }
    }

    @Test func transparentKeySurvivesScaling() throws {
        let image = try PNG.decode(try pngSuiteFile("tbrn2c08.png"))
        let back = try PNG.decode(try PNG.encode(try image.scaled(to: .factor(2))))
        #expect(back.transparentKey == image.transparentKey)
    }

    @Test func fitPrefersWholeFactors() throws {
        #expect(try ScaleTarget.fit(width: 100, height: 100).outputSize(width: 16, height: 16) == (96, 96))
        #expect(try ScaleTarget.fit(width: 100, height: 50).outputSize(width: 16, height: 8) == (96, 48))
        #expect(try ScaleTarget.fit(width: 100, height: 30).outputSize(width: 16, height: 8) == (48, 24))
        #expect(try ScaleTarget.fit(width: 16, height: 16).outputSize(width: 16, height: 16) == (16, 16))
        // Shrinking by a whole divisor when one fits exactly.
        #expect(try ScaleTarget.fit(width: 50, height: 50).outputSize(width: 200, height: 100) == (50, 25))
        // Otherwise the aspect-preserving size that touches the box.
        #expect(try ScaleTarget.fit(width: 70, height: 70).outputSize(width: 200, height: 100) == (70, 35))
        #expect(try ScaleTarget.fit(width: 100, height: 7).outputSize(width: 30, height: 21) == (10, 7))
    }

    @Test func badFactorsAndSizesAreErrors() throws {
        let image = try Image(width: 4, height: 4, format: .gray8, pixels: Array(repeating: 0, count: 16))
        let bad: [ScaleTarget] = [
            .factor(0), .factor(-2), .factor(.nan), .factor(.infinity), .factor(-.infinity), .factor(1e300),
            .factor(0.01), .factors(x: 1, y: .nan), .factors(x: 2, y: 0), .size(width: 0, height: 4),
            .size(width: 4, height: -1), .fit(width: 0, height: 10), .fit(width: 10, height: -3),
            .size(width: Int.max, height: Int.max), .size(width: 1 << 31, height: 1),
        ]
        for target in bad {
            #expect(throws: PixelArtError.self, "\(target)") { try image.scaled(to: target) }
        }
        // A size that is valid on its own but too big in bytes or for the limit.
        #expect(throws: PixelArtError.self) {
            try image.scaled(width: 1 << 30, height: 1 << 30)
        }
        #expect(throws: PixelArtError.tooManyPixels(width: 100, height: 100, limit: 1000)) {
            try image.scaled(width: 100, height: 100, maxPixels: 1000)
        }
    }

    @Test func rawBuffersAreChecked() {
        #expect(throws: PixelArtError.self) { try Image(width: 2, height: 2, format: .rgb8, pixels: [0, 0, 0]) }
        #expect(throws: PixelArtError.self) { try Image(width: 0, height: 2, format: .rgb8, pixels: []) }
        #expect(throws: PixelArtError.self) {
            try Image(
                width: 1, height: 1, format: .indexed8, pixels: [3], palette: [PaletteEntry(red: 0, green: 0, blue: 0)])
        }
        #expect(throws: PixelArtError.self) { try Image(width: 1, height: 1, format: .indexed8, pixels: [0]) }
        #expect(throws: PixelArtError.self) {
            try Image(width: 1, height: 1, format: try PixelFormat(.gray, bitDepth: 2), pixels: [4])
        }
        #expect(throws: PixelArtError.self) { try PixelFormat(.rgb, bitDepth: 4) }
        #expect(throws: PixelArtError.self) { try PixelFormat(.indexed, bitDepth: 16) }
    }
}
