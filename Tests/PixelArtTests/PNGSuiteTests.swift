import Foundation
import PixelArt
import Testing

@Suite("PngSuite")
struct PNGSuiteTests {
    @Test func theWholeFolderIsThere() throws {
        let files = try pngSuiteFiles()
        #expect(files.count >= 170, "PngSuite not found at \(pngSuiteDirectory.path)")
        #expect(files.filter { $0.lastPathComponent.hasPrefix("x") }.count == 14)
    }

    @Test func everyValidFileDecodes() throws {
        for file in try pngSuiteFiles() where !file.lastPathComponent.hasPrefix("x") {
            let bytes = [UInt8](try Data(contentsOf: file))
            let image: Image
            do {
                image = try PNG.decode(bytes)
            } catch {
                Issue.record("\(file.lastPathComponent): \(error)")
                continue
            }
            #expect(image.pixels.count == image.width * image.height * image.format.bytesPerPixel)
            // PngSuite names encode the format: basn3p04 = colour type 3 (5th character), 4 bits (last two).
            let name = file.deletingPathExtension().lastPathComponent
            let colorType = Int(String(name[name.index(name.startIndex, offsetBy: 4)]))!
            let bitDepth = Int(name.suffix(2))!
            let expected: [Int: ColorType] = [0: .gray, 2: .rgb, 3: .indexed, 4: .grayAlpha, 6: .rgba]
            #expect(image.format.colorType == expected[colorType], "\(name)")
            #expect(image.format.bitDepth == bitDepth, "\(name)")
            #expect((image.format.colorType == .indexed) == !image.palette.isEmpty, "\(name)")
        }
    }

    @Test func everyBrokenFileIsRejectedWithAMessage() throws {
        let broken = try pngSuiteFiles().filter { $0.lastPathComponent.hasPrefix("x") }
        #expect(broken.count == 14)
        for file in broken {
            #expect(throws: PixelArtError.self, "\(file.lastPathComponent) was accepted") {
                try PNG.decode([UInt8](try Data(contentsOf: file)))
            }
            do {
                _ = try PNG.read(path: file.path)
            } catch {
                guard case .invalidPNG(let problem) = error else {
                    Issue.record("\(file.lastPathComponent): unexpected error \(error)")
                    continue
                }
                #expect(!problem.isEmpty)
            }
        }
    }

    /// Interlaced files (basi…) hold the same pixels as their non-interlaced twins (basn…).
    @Test func interlacedMatchesNonInterlaced() throws {
        let interlaced = try pngSuiteFiles().map(\.lastPathComponent).filter { $0.hasPrefix("basi") }
        #expect(interlaced.count == 15)
        for name in interlaced {
            let a = try PNG.decode(try pngSuiteFile(name))
            let b = try PNG.decode(try pngSuiteFile("basn" + name.dropFirst(4)))
            #expect(a == b, "\(name)")
        }
    }

    /// Known pixel values: basn0g01 is a 1-bit gray image; samples stay 0/1, one per byte.
    @Test func lowBitDepthsStayUnexpanded() throws {
        let image = try PNG.decode(try pngSuiteFile("basn0g01.png"))
        #expect(image.width == 32 && image.height == 32)
        #expect(Set(image.pixels) == [0, 1])
        let palette4 = try PNG.decode(try pngSuiteFile("basn3p04.png"))
        #expect(palette4.format == (try PixelFormat(.indexed, bitDepth: 4)))
        #expect(palette4.pixels.allSatisfy { Int($0) < palette4.palette.count })
    }

    @Test func transparencyIsKept() throws {
        let palette = try PNG.decode(try pngSuiteFile("tbbn3p08.png"))
        #expect(palette.palette.contains { $0.alpha < 255 })
        let gray = try PNG.decode(try pngSuiteFile("tbbn0g04.png"))
        #expect(gray.transparentKey?.count == 1)
        let rgb = try PNG.decode(try pngSuiteFile("tbrn2c08.png"))
        #expect(rgb.transparentKey?.count == 3)
    }

    /// decode → encode → decode gives the same image for every valid file, at several levels.
    @Test(arguments: [0, 6, 9])
    func everyValidFileRoundTrips(level: Int) throws {
        for file in try pngSuiteFiles() where !file.lastPathComponent.hasPrefix("x") {
            let image = try PNG.decode([UInt8](try Data(contentsOf: file)))
            let again = try PNG.decode(try PNG.encode(image, compressionLevel: level))
            #expect(again == image, "\(file.lastPathComponent)")
        }
    }
}
