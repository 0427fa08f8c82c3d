import Testing

@testable import PerfStatistics

@Suite struct StudentTTests {
    /// Table values (two-sided 5% and 1% critical values of Student's t).
    @Test func pValuesAtTabulatedCriticalValues() {
        #expect(abs(StudentT.twoSidedPValue(2.776, degreesOfFreedom: 4) - 0.05) < 0.0005)
        #expect(abs(StudentT.twoSidedPValue(2.228, degreesOfFreedom: 10) - 0.05) < 0.0005)
        #expect(abs(StudentT.twoSidedPValue(3.169, degreesOfFreedom: 10) - 0.01) < 0.0002)
        #expect(abs(StudentT.twoSidedPValue(12.706, degreesOfFreedom: 1) - 0.05) < 0.0005)
        // Many degrees of freedom: the normal distribution's 1.96.
        #expect(abs(StudentT.twoSidedPValue(1.96, degreesOfFreedom: 1e6) - 0.05) < 0.0005)
        #expect(StudentT.twoSidedPValue(0, degreesOfFreedom: 3) == 1)
        #expect(
            StudentT.twoSidedPValue(-2.776, degreesOfFreedom: 4) == StudentT.twoSidedPValue(2.776, degreesOfFreedom: 4))
    }

    @Test func quantilesMatchTheTable() {
        #expect(abs(StudentT.quantile(0.975, degreesOfFreedom: 4) - 2.776) < 0.001)
        #expect(abs(StudentT.quantile(0.975, degreesOfFreedom: 10) - 2.228) < 0.001)
        #expect(abs(StudentT.quantile(0.995, degreesOfFreedom: 6) - 3.707) < 0.001)
    }
}
