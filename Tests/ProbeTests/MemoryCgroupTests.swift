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

    /// The same files read twice through kept descriptors: the second reading shows what was
    /// rewritten in between, and nothing stays open once the files are closed.
    @Test func keptDescriptorsReadTheFileAfresh() throws {
        let copy = try Self.copyOfFixture("v2")
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let cgroup = try #require(MemoryCgroup.find(root: copy).cgroup)
        let files = KeptFiles(capacity: 16)  // memory.events fills it: the buffer grows
        let reader = MemoryCgroup.Reader(cgroup: cgroup, files: files)
        let first = reader.read()
        #expect(first == cgroup.read())
        #expect(files.openCount == 5)  // memory.current, three memory.max up to the root (none there), memory.events

        try Self.rewrite(cgroup.directory + "/memory.current", "500000000\n")
        try Self.rewrite(
            cgroup.directory + "/memory.events", "low 0\nhigh 3\nmax 1850\noom 2\noom_kill 1\noom_group_kill 0\n")
        try Self.rewrite(copy + "/sys/fs/cgroup/kubepods.slice/memory.max", "max\n")
        let second = reader.read()
        #expect(second.usageBytes == 500_000_000)
        #expect(second.limitBytes == 1 << 30)  // the container's own, the slice's now gone
        #expect(second.events["high"] == 3 && second.events["max"] == 1850)
        #expect(second == cgroup.read())
        #expect(reader.read() == second)

        files.closeAll()
        #expect(files.openCount == 0)
        #expect(Self.descriptors(under: copy).isEmpty)
    }

    /// v1's files through kept descriptors: the failure count and the OOM kills rewritten between checks.
    @Test func keptDescriptorsOnV1() throws {
        let copy = try Self.copyOfFixture("v1-hybrid")
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let cgroup = try #require(MemoryCgroup.find(root: copy).cgroup)
        let files = KeptFiles()
        let reader = MemoryCgroup.Reader(cgroup: cgroup, files: files)
        #expect(reader.read() == cgroup.read())
        try Self.rewrite(cgroup.directory + "/memory.failcnt", "17\n")
        try Self.rewrite(cgroup.directory + "/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n")
        try Self.rewrite(cgroup.directory + "/memory.usage_in_bytes", "1000000\n")
        let reading = reader.read()
        #expect(reading.events == ["max": 17, "oom_kill": 2] && reading.usageBytes == 1_000_000)
        #expect(reading.limitBytes == 256 << 20)
        files.closeAll()
        #expect(Self.descriptors(under: copy).isEmpty)
    }

    /// A running watch sees a file rewritten between its checks, and leaves no descriptor open
    /// after `stop()`.
    @Test func aWatchReadsRewrittenFilesAndClosesThemAtStop() async throws {
        let copy = try Self.copyOfFixture("v2")
        defer { try? FileManager.default.removeItem(atPath: copy) }
        var configuration = MemoryWatchConfiguration(name: "kept")
        configuration.fileSystemRoot = copy
        configuration.metrics = false
        configuration.checkInterval = .milliseconds(10)
        let watch = MemoryWatch(configuration: configuration)
        try watch.start()
        #expect(try await Self.eventually { watch.latest?.usageBytes == 490_733_568 })
        #expect(!Self.descriptors(under: copy).isEmpty)
        try Self.rewrite(copy + "/sys/fs/cgroup/kubepods.slice/pod1/app/memory.current", "123456789\n")
        #expect(try await Self.eventually { watch.latest?.usageBytes == 123_456_789 })
        watch.stop()
        #expect(Self.descriptors(under: copy).isEmpty)
    }

    /// The byte parsers read what the String ones before them read.
    @Test func byteParsersReadAsStringsDid() throws {
        for text in [
            "0\n", " 42 \n", "max\n", "+7", "-0", "-3", "", "\n", "12a", "18446744073709551615", "18446744073709551616",
        ] {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            let expected = trimmed == "max" ? UInt64.max : UInt64(trimmed)
            var copy = text
            #expect(copy.withUTF8 { MemoryCgroup.number(in: UnsafeRawBufferPointer($0)) } == expected, "\(text)")
        }
        let keyed = "a 1\nb  2\n\nc 3 4\nd x\ne\t5\n a 6\nf 7\r\n"
        var expected: [String: UInt64] = [:]
        for line in keyed.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = UInt64(parts[1]) { expected[String(parts[0])] = value }
        }
        #expect(MemoryCgroup.parseKeyedCounts(keyed) == expected)
        var averages = 0
        for hundredths in 0...10_000 {
            let text = "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
            var copy = text
            let parsed = copy.withUTF8 { ByteText.double(UnsafeRawBufferPointer($0)) }
            #expect(parsed == Double(text), "\(text)")
            averages += 1
        }
        #expect(averages == 10_001)
        for text in ["1e3", ".5", "5.", "nan", "inf", "0x1p3", "12345678901234567890.5", "abc", ""] {
            var copy = text
            #expect(
                copy.withUTF8 { ByteText.double(UnsafeRawBufferPointer($0)) }.map(\.bitPattern)
                    == Double(text).map(\.bitPattern), "\(text)")
        }
        let pressure =
            "some avg10=1.50 avg60=0.25 avg300=0.00 total=99\nfull avg10=0.10 avg60=0.00 avg300=0.00 total=7\n"
        #expect(
            PressureStall.parse(pressure)
                == PressureStall(
                    someAvg10: 1.5, someAvg60: 0.25, someAvg300: 0, someTotalMicroseconds: 99, fullAvg10: 0.1,
                    fullTotalMicroseconds: 7))
        #expect(PressureStall.parse("full avg10=1.00 total=3\n") == nil)
        #expect(PressureStall.parse("some avg10= avg60=2.00\n") == nil)
    }

    static func copyOfFixture(_ name: String) throws -> String {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("probe-\(name)-\(UUID().uuidString)")
            .path
        try FileManager.default.copyItem(atPath: fixtures + "/" + name, toPath: copy)
        return copy
    }

    /// Rewrites `path` in place (the same inode, as the kernel's files stay).
    static func rewrite(_ path: String, _ text: String) throws {
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    /// This process's descriptors open on files under `directory`.
    static func descriptors(under directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name),
                target.hasPrefix(directory)
            else { return nil }
            return target
        }
    }

    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<200 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}
