import Testing

@testable import PerfReport

/// One spelling of a p-value for every output.
@Suite struct PValueFormattingTests {
    @Test func threeSignificantDigitsAboveTheBound() {
        #expect(UnitFormatting.pValue(0.012345) == "p = 0.0123")
        #expect(UnitFormatting.pValue(0.05) == "p = 0.05")
        #expect(UnitFormatting.pValue(1) == "p = 1")
        #expect(UnitFormatting.pValue(0.001) == "p = 0.001")
    }

    @Test func belowTheBoundOnlyTheBound() {
        #expect(UnitFormatting.pValue(0.000952) == "p < 0.001")
        #expect(UnitFormatting.pValue(0) == "p < 0.001")
    }

    @Test func aMissingValueIsADash() {
        #expect(UnitFormatting.pValue(.nan) == "—")
    }
}
