import Foundation
import Testing

/// `perfkit scale`'s option values, parsed by argument-parser: a bad one is an `Error:` line naming
/// the option (and, for a closed set, every value), exit 1, nothing written.
extension CommandLineTests {
    /// A 32×32 RGB PNG of PngSuite (in PixelArtTests' fixtures).
    static var smallPNG: URL {
        packageRoot.appendingPathComponent("Tests/PixelArtTests/Fixtures/pngsuite/png/basn2c08.png")
    }

    /// Width and height from a PNG's IHDR chunk.
    func pngSize(_ url: URL) throws -> (width: Int, height: Int) {
        let bytes = [UInt8](try Data(contentsOf: url))
        try #require(bytes.count > 24)
        func bigEndian(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (bigEndian(16), bigEndian(20))
    }

    @Test func anUnknownRowFilterListsEveryFilterIncludingAutoAndAll() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.png")
        let outcome = try perfkit(["scale", Self.smallPNG.path, output.path, "--factor", "2", "--filter", "best"])
        #expect(outcome.status == 1)
        #expect(
            outcome.stderr.hasPrefix("Error: The value 'best' is invalid for '--filter <filter>'"), "\(outcome.stderr)")
        let listed = outcome.stderr.split(separator: "\n").filter { $0.hasPrefix("  - ") }.map { $0.dropFirst(4) }
        #expect(listed == ["content", "adaptive", "none", "sub", "up", "average", "paeth", "libpng", "auto", "all"])
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func aFitThatIsNotWxHIsAOneLineErrorNamingTheShape() throws {
        for bad in ["512", "512x", "x512", "axb", "512x512x2"] {
            let outcome = try perfkit(["scale", Self.smallPNG.path, "out.png", "--fit", bad])
            #expect(outcome.status == 1, "\(bad)")
            let lines = outcome.stderr.split(separator: "\n")
            #expect(lines.first == "Error: The value '\(bad)' is invalid for '--fit <WxH>'", "\(outcome.stderr)")
            #expect(lines.filter { $0.hasPrefix("Error:") }.count == 1)
        }
    }

    @Test func fitAndEveryFilterAliasScale() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for filter in ["content", "auto", "all"] {
            let output = directory.appendingPathComponent("\(filter).png")
            let outcome = try perfkit(["scale", Self.smallPNG.path, output.path, "--fit", "64X96", "--filter", filter])
            #expect(outcome.status == 0, "\(filter): \(outcome.stderr)")
            #expect(try pngSize(output) == (64, 64), "\(filter)")
        }
    }

    @Test func scaleStillWantsExactlyOneSize() throws {
        let both = try perfkit(["scale", Self.smallPNG.path, "out.png", "--factor", "2", "--fit", "64x64"])
        #expect(both.status == 1)
        #expect(both.stderr.hasPrefix("Error: give exactly one of --factor, --width/--height, --fit\n"))
        let half = try perfkit(["scale", Self.smallPNG.path, "out.png", "--width", "64"])
        #expect(half.status == 1)
        #expect(half.stderr.hasPrefix("Error: --width and --height go together\n"))
    }

    @Test func helpListsTheFiltersAndTheShapeOfFit() throws {
        let help = try helpWords("scale")
        #expect(help.contains("--fit <WxH>"))
        #expect(help.contains("auto - The same as libpng. all - libpng's own writer with every filter allowed"))
    }
}
