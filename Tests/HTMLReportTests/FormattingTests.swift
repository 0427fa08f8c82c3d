import Foundation
import Testing

@testable import HTMLReport

@Suite struct FormattingTests {
    @Test func durationsPickTheUnit() {
        #expect(UnitFormatting.duration(nanoseconds: 0.5) == "0.500 ns")
        #expect(UnitFormatting.duration(nanoseconds: 812) == "812 ns")
        #expect(UnitFormatting.duration(nanoseconds: 1234) == "1.23 µs")
        #expect(UnitFormatting.duration(nanoseconds: 45_600_000) == "45.6 ms")
        #expect(UnitFormatting.duration(nanoseconds: 2e9) == "2.00 s")
        #expect(UnitFormatting.duration(nanoseconds: .nan) == "—")
    }

    @Test func ratesUseBinaryPrefixesForBytesAndDecimalForItems() {
        #expect(UnitFormatting.bytesPerSecond(512) == "512 B/s")
        #expect(UnitFormatting.bytesPerSecond(1536) == "1.50 KiB/s")
        #expect(UnitFormatting.bytesPerSecond(3 * 1024 * 1024) == "3.00 MiB/s")
        #expect(UnitFormatting.bytesPerSecond(5.5 * 1024 * 1024 * 1024) == "5.50 GiB/s")
        #expect(UnitFormatting.itemsPerSecond(950) == "950 items/s")
        #expect(UnitFormatting.itemsPerSecond(3_200_000) == "3.20 M items/s")
        #expect(UnitFormatting.bytes(48) == "48 B")
    }

    @Test func changesAreSigned() {
        #expect(UnitFormatting.change(ratio: 1.234) == "+23.4 %")
        #expect(UnitFormatting.change(ratio: 0.9) == "−10.0 %")
        #expect(UnitFormatting.percent(0.0345) == "3.45 %")
    }

    @Test func escapingCoversTextAndAttributes() {
        #expect(HTMLEscaping.escape("<a href=\"x\">'&'</a>") == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
        #expect(HTMLEscaping.escape("a\u{0}b\u{1B}c\td") == "a\u{FFFD}b\u{FFFD}c\td")
        let name = "Array<Int>"
        let markup: Markup = "<td title=\"\(name)\">\(name)</td>"
        #expect(markup.text == "<td title=\"Array&lt;Int&gt;\">Array&lt;Int&gt;</td>")
    }

    @Test func sha256MatchesTheStandardVectors() {
        let hex = { (bytes: [UInt8]) in bytes.map { String(format: "%02x", $0) }.joined() }
        #expect(
            hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex(SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(hex(SHA256.hash(long)) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func coordinatesAreNeverNaN() {
        #expect(HTMLEscaping.coordinate(.nan) == "0")
        #expect(HTMLEscaping.coordinate(.infinity) == "0")
        #expect(HTMLEscaping.coordinate(12.34) == "12.3")
        #expect(HTMLEscaping.coordinate(12.0) == "12")
    }

    @Test func tukeyFencesClassifyOutliers() throws {
        let values = [10.0, 11, 12, 13, 14, 15, 16, 17, 18, 19, 30, 60]
        let fences = try #require(TukeyFences(values))
        #expect(fences.classify(15) == .normal)
        #expect(fences.classify(30) == .mild)
        #expect(fences.classify(60) == .severe)
    }

    @Test func scalesGiveRoundTicks() {
        let linear = ChartScale(covering: [0, 97], pixels: (0, 100), logarithmic: false, includeZero: true)
        #expect(linear.ticks() == [0, 20, 40, 60, 80, 100])
        let log = ChartScale(covering: [3, 4000], pixels: (0, 100), logarithmic: true)
        #expect(log.ticks() == [1, 10, 100, 1000, 10000])
        #expect(abs(log(100) - 50) < 1e-9)
    }
}
