import Harness
import Testing

@Suite struct TimingConditionsTests {
    let native = TimingConditions(
        underValgrind: false, buildConfiguration: "release", cpuModel: "AMD EPYC", coreCount: 2)

    @Test func theSameConditionsCompare() {
        #expect(native.differences(from: native).isEmpty)
        var valgrind = native
        valgrind.underValgrind = true
        #expect(valgrind.differences(from: valgrind).isEmpty, "two runs under valgrind compare with each other")
    }

    @Test func eachDifferenceIsNamed() {
        var other = native
        other.underValgrind = true
        other.buildConfiguration = "debug"
        other.cpuModel = "Intel Xeon"
        other.coreCount = 8
        #expect(
            other.differences(from: native) == [
                "the baseline's times were taken under valgrind (callgrind), this run's natively",
                "the baseline is a debug build, this run a release one",
                "the baseline ran on Intel Xeon with 8 cores, this run on AMD EPYC with 2",
            ])
    }

    /// One fixed hash seed for every process against a seed per process: a hashing benchmark's level
    /// differs by the seed alone, and a gate would count each process as a draw of it. A report from
    /// before this was recorded compares with either.
    @Test func hashingWithOneFixedSeedDoesNotCompareWithASeedPerProcess() {
        var fixed = native
        fixed.deterministicHashing = true
        var perProcess = native
        perProcess.deterministicHashing = false
        #expect(
            fixed.differences(from: perProcess) == [
                "the baseline's processes hashed with Swift's one fixed seed (SWIFT_DETERMINISTIC_HASHING set), this run's each with a seed of its own: record both the same way"
            ])
        #expect(fixed.differences(from: fixed).isEmpty)
        #expect(native.differences(from: fixed).isEmpty, "not recorded: compares")
    }

    /// As Swift's runtime reads the variable: a boolean by its first character.
    @Test func theRuntimesReadingOfTheVariable() {
        for value in ["1", "true", "TRUE", "yes", "Y"] {
            #expect(EnvironmentCapture.deterministicHashing(["SWIFT_DETERMINISTIC_HASHING": value]), "\(value)")
        }
        for value in ["0", "false", "no", ""] {
            #expect(!EnvironmentCapture.deterministicHashing(["SWIFT_DETERMINISTIC_HASHING": value]), "\(value)")
        }
        #expect(!EnvironmentCapture.deterministicHashing([:]))
    }
}
