import PerfReport
import Testing

@testable import Harness

/// What a report says about the processor and architecture it ran on, and about emulation.
@Suite struct PlatformTests {
    static let x86CPUInfo = """
        processor\t: 0
        vendor_id\t: AuthenticAMD
        model name\t: AMD EPYC
        """
    /// A Graviton 3's /proc/cpuinfo (one core of it).
    static let gravitonCPUInfo = """
        processor\t: 0
        BogoMIPS\t: 2100.00
        Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt fcma lrcpc
        CPU implementer\t: 0x41
        CPU architecture: 8
        CPU variant\t: 0x1
        CPU part\t: 0xd40
        CPU revision\t: 1
        """

    @Test func armCoresAreNamedFromImplementerAndPart() {
        #expect(EnvironmentCapture.cpuModel(cpuinfo: Self.gravitonCPUInfo) == "Arm Neoverse V1")
        #expect(EnvironmentCapture.cpuModel(cpuinfo: Self.x86CPUInfo) == "AMD EPYC")
        let unknownPart = Self.gravitonCPUInfo.replacingOccurrences(of: "0xd40", with: "0xfff")
        #expect(EnvironmentCapture.cpuModel(cpuinfo: unknownPart) == "arm64 (implementer 0x41, part 0xfff)")
        #expect(EnvironmentCapture.cpuModel(cpuinfo: "") == "unknown")
    }

    @Test func aProcessorOfAnotherFamilyMeansEmulation() {
        // qemu-user passes the host's /proc/cpuinfo through: an x86 description under aarch64.
        #expect(EnvironmentCapture.emulator(architecture: "aarch64", cpuinfo: Self.x86CPUInfo) != nil)
        #expect(EnvironmentCapture.emulator(architecture: "x86_64", cpuinfo: Self.gravitonCPUInfo) != nil)
        #expect(EnvironmentCapture.emulator(architecture: "aarch64", cpuinfo: Self.gravitonCPUInfo) == nil)
        #expect(EnvironmentCapture.emulator(architecture: "x86_64", cpuinfo: Self.x86CPUInfo) == nil)
        #expect(EnvironmentCapture.emulator(architecture: "x86_64", cpuinfo: nil) == nil)
    }

    @Test func thisMachineIsRecorded() {
        let environment = EnvironmentCapture.capture(buildConfiguration: "release")
        #if arch(x86_64)
            #expect(environment.architecture == "x86_64")
        #elseif arch(arm64)
            #expect(environment.architecture == "aarch64")
        #endif
        #expect((environment.emulator == nil) == (environment.emulationNote == nil))
    }

    @Test func anEmulatedRunSaysSoInEveryView() {
        var environment = Synthetic.environment
        environment.architecture = "aarch64"
        environment.emulator = "qemu-user"
        var report = Synthetic.report([Synthetic.result("S/g/a", nanosecondsPerOperation: [10, 11, 10])])
        report.environment = environment
        let note = "measured as aarch64 under qemu-user"
        #expect(FindingsText.text(report).hasPrefix("Emulated: \(note)"))
        #expect(ResultTable.markdown(report).contains("> Emulated: \(note)"))
        report.environment = Synthetic.environment
        #expect(!FindingsText.text(report).contains("Emulated"))
    }

    @Test func emulatedAndNativeTimesDoNotCompare() {
        let native = TimingConditions(
            underValgrind: false, buildConfiguration: "release", cpuModel: "AMD EPYC", coreCount: 2)
        var emulated = native
        emulated.emulator = "qemu-user"
        #expect(
            emulated.differences(from: native) == [
                "the baseline's times were taken under qemu-user emulation, this run's on real hardware"
            ])
    }
}
