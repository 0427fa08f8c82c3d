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
}
