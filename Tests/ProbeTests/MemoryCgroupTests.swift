import Foundation
import MetricsTestKit
import Testing

@testable @_spi(Testing) import Probe

/// The memory cgroup found and read on captured layouts (Fixtures/memory: this machine's v1
/// hybrid, a pure v2 host, a machine with neither cgroups nor PSI).
struct MemoryCgroupTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures/memory"
    ).path

    @Test func cgroupV1MemoryWithAV2HierarchyBeside() throws {
        let root = Self.fixtures + "/v1-hybrid"
        let found = MemoryCgroup.find(root: root)
        let cgroup = try #require(found.cgroup)
        #expect(cgroup.version == .v1)
        #expect(cgroup.directory == root + "/sys/fs/cgroup/memory/perfkit-fixture")
        // Pressure from the v2 cgroup of the same process, which has its own file without the controller.
        #expect(found.pressureFile == root + "/sys/fs/cgroup/unified/perfkit-fixture/memory.pressure")
        #expect(found.missing.isEmpty)
        let reading = cgroup.read()
        #expect(reading.usageBytes == 778_240)
        #expect(reading.limitBytes == 256 << 20)
        #expect(reading.events["oom_kill"] == 0)
        #expect(reading.events["max"] != nil)
    }

    @Test func cgroupV2TheTightestLimitOnTheWayUp() throws {
        let root = Self.fixtures + "/v2"
        let found = MemoryCgroup.find(root: root)
        let cgroup = try #require(found.cgroup)
        #expect(cgroup.version == .v2)
        #expect(cgroup.directory == root + "/sys/fs/cgroup/kubepods.slice/pod1/app")
        #expect(found.pressureFile == cgroup.directory + "/memory.pressure")
        let reading = cgroup.read()
        #expect(reading.usageBytes == 490_733_568)
        #expect(reading.limitBytes == 512 << 20)  // the slice's, below the container's own 1 GiB
        #expect(reading.events == ["low": 0, "high": 0, "max": 1843, "oom": 2, "oom_kill": 1, "oom_group_kill": 0])
        let pressure = try #require(
            PressureStall.parse(try String(contentsOfFile: found.pressureFile!, encoding: .utf8)))
        #expect(pressure.someAvg10 == 12.5 && pressure.someTotalMicroseconds == 4_180_833 && pressure.fullAvg10 == 4.02)
    }

    @Test func noCgroupAndNoPressureAreSaid() {
        let found = MemoryCgroup.find(root: Self.fixtures + "/bare")
        #expect(found.cgroup == nil)
        #expect(found.pressureFile == nil)
        #expect(found.missing.count == 2)
        #expect(found.missing.contains { $0.hasPrefix("no memory cgroup") })
        #expect(found.missing.contains { $0.hasPrefix("no memory pressure stall information") })
    }

    @Test func mountinfoPathsWithEscapesAndNamespacedRoots() {
        let mounts = MemoryCgroup.parseMounts(
            "40 31 0:37 /kubepods/pod\\0401 /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n41 31 0:38 / /proc rw - proc proc rw\n"
        )
        #expect(
            mounts == [
                MemoryCgroup.Mount(
                    root: "/kubepods/pod 1", point: "/sys/fs/cgroup", type: "cgroup2", superOptions: ["rw"])
            ])
    }

    /// A watch pointed at a machine without PSI or a memory cgroup starts, and says what it lacks.
    @Test func aWatchWithoutFacilitiesSaysWhatItLacks() throws {
        var configuration = MemoryWatchConfiguration(name: "bare")
        configuration.fileSystemRoot = Self.fixtures + "/bare"
        configuration.metrics = false
        let watch = MemoryWatch(configuration: configuration)
        try watch.start()
        defer { watch.stop() }
        #expect(watch.limitations.count == 2)
        #expect(watch.limitations.allSatisfy { $0.contains(": no ") })
    }

    /// On the v2 layout (copied: arming the trigger writes to the pressure file, here a plain one) usage is 91% of the
    /// slice's limit: the first check warns once, with the figures.
    @Test func aWatchOnAV2LayoutWarnsNearTheLimit() async throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("probe-v2-\(UUID().uuidString)").path
        try FileManager.default.copyItem(atPath: Self.fixtures + "/v2", toPath: copy)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        var configuration = MemoryWatchConfiguration(name: "v2")
        configuration.fileSystemRoot = copy
        let metrics = TestMetrics()
        configuration.metricsFactory = metrics
        configuration.checkInterval = .milliseconds(20)
        let watch = MemoryWatch(configuration: configuration)
        let warnings = watch.warnings()
        try watch.start()
        var first: MemoryWarning?
        for await warning in warnings {
            first = warning
            break
        }
        try await Task.sleep(for: .milliseconds(100))  // more checks: still one warning for one crossing
        watch.stop()
        let warning = try #require(first)
        #expect(warning.reason == .nearLimit)
        #expect(warning.memory.limitBytes == 512 << 20 && warning.memory.cgroupVersion == "v2")
        #expect(watch.recentWarnings.count == 1)
        #expect(watch.limitations.isEmpty)
        let limit = try metrics.expectGauge("probe_memory_limit_bytes", [("watch", "v2")])
        #expect(limit.lastValue == Double(512 << 20))
        let warned = try metrics.expectCounter(
            "probe_memory_warnings_total", [("watch", "v2"), ("reason", "near-limit")])
        #expect(warned.totalValue == 1)
    }

    /// Without a limit there is no limit series (a gauge made up front would read a limit of 0).
    @Test func noLimitNoLimitGauge() throws {
        var configuration = MemoryWatchConfiguration(name: "bare")
        configuration.fileSystemRoot = Self.fixtures + "/bare"
        let metrics = TestMetrics()
        configuration.metricsFactory = metrics
        let watch = MemoryWatch(configuration: configuration)
        try watch.start()
        Thread.sleep(forTimeInterval: 0.05)  // the first check runs as the thread starts
        watch.stop()
        #expect(throws: (any Error).self) { try metrics.expectGauge("probe_memory_limit_bytes", [("watch", "bare")]) }
    }
}
