import Foundation
import Testing

@testable import Probe

/// Real instances of `probe-test-helper memory …`, each ending a different way, and the next
/// instance on the same breadcrumb saying how: an OOM kill inside a memory cgroup this test makes
/// (root; v2 where the process's v2 cgroup can have children with memory, else v1's controller),
/// a clean stop, a SIGSEGV through the crash handler, a SIGKILL with no memory trouble.
@Suite(.serialized)
struct MemoryWatchProcessTests {
    struct Instance {
        var previous: PreviousExit?
        var limitations: [String]
        var process: Process
    }

    /// Starts the helper (inside `cgroup` when given) and reads its first lines: the previous exit
    /// and its limitations, up to "ready".
    static func start(
        _ action: String, breadcrumb: String, jsonLines: String, cgroup: MemoryLimitedCgroup? = nil,
        heapProfiles: String? = nil, hogPauseMilliseconds: Int? = nil, hogAwaitsProfile: Bool = false
    ) throws -> Instance {
        let process = Process()
        let helper = builtExecutable("probe-test-helper")
        if let cgroup {
            // Joins the cgroups first, so that everything the helper allocates is charged there.
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = [
                "-c", cgroup.joinCommand + " && exec \"$0\" \"$@\"", helper, "memory", breadcrumb, jsonLines, action,
            ]
        } else {
            process.executableURL = URL(fileURLWithPath: helper)
            process.arguments = ["memory", breadcrumb, jsonLines, action]
        }
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"  // a crash ends at once, without a printed backtrace
        if let heapProfiles { environment["PROBE_TEST_HEAP_DIR"] = heapProfiles }
        if let hogPauseMilliseconds { environment["PROBE_TEST_HOG_PAUSE_MS"] = String(hogPauseMilliseconds) }
        if hogAwaitsProfile { environment["PROBE_TEST_HOG_AWAITS_PROFILE"] = "1" }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var lines: [String] = []
        var buffer = Data()
        while lines.last != "ready" {
            if let newline = buffer.firstIndex(of: 0x0A) {
                lines.append(String(decoding: buffer[..<newline], as: UTF8.self))
                buffer.removeSubrange(...newline)
                continue
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
        }
        try #require(lines.last == "ready", "helper said: \(lines)")
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let previous = lines.first == "null" ? nil : try decoder.decode(PreviousExit.self, from: Data(lines[0].utf8))
        let limitations = lines.filter { $0.hasPrefix("limitation: ") }
        return Instance(previous: previous, limitations: limitations, process: process)
    }

    static func scratch() throws -> (directory: String, breadcrumb: String, jsonLines: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "probe-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (directory.path, directory.path + "/breadcrumb", directory.path + "/memory.jsonl")
    }

    static func records(_ path: String) -> [[String: Any]] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test(.enabled(if: MemoryLimitedCgroup.unavailable == nil, "needs root and a memory cgroup controller"))
    func anOOMKillIsWarnedAboutAndReadAsKilledForMemory() throws {
        let (directory, breadcrumb, jsonLines) = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cgroup = try MemoryLimitedCgroup(
            name: "perfkit-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))", limitBytes: 96 << 20)
        defer { cgroup.remove() }
        let heapProfiles = directory + "/heap"
        try FileManager.default.createDirectory(atPath: heapProfiles, withIntermediateDirectories: true)

        // Natively 80 MiB/s: the last 10% before the limit takes ~120 ms, in which the watch checks,
        // writes its record and then the heap profile. Emulated, the watch runs ~20x slower but the
        // hog's pauses do not: it pauses 40x longer there, and waits for the warning's profile, whose
        // first symbolication outlasted the hog's way to the limit even so (docs/platforms.md).
        let emulated = ThreadInfo.procDescribesAnotherArchitecture
        let hog = try Self.start(
            "hog", breadcrumb: breadcrumb, jsonLines: jsonLines, cgroup: cgroup, heapProfiles: heapProfiles,
            hogPauseMilliseconds: emulated ? 1_000 : 25, hogAwaitsProfile: emulated)
        #expect(hog.previous == nil)  // a new breadcrumb
        #expect(hog.limitations.isEmpty, "\(hog.limitations)")  // cgroup, PSI and its trigger all there
        hog.process.waitUntilExit()
        #expect(hog.process.terminationReason == .uncaughtSignal && hog.process.terminationStatus == SIGKILL)
        #expect(cgroup.oomKills == 1)
        let warnings = Self.records(jsonLines).filter { $0["type"] as? String == "memory-warning" }
        #expect(!warnings.isEmpty, "no warning before the OOM kill")
        #expect(warnings.contains { $0["reason"] as? String == "near-limit" })
        // The near-limit warning wrote what held the memory, named in its record: the hog's function.
        let nearLimit = try #require(warnings.first { $0["reason"] as? String == "near-limit" })
        let written = try #require(nearLimit["heapProfile"] as? String, "\(nearLimit)")
        let profiles = try FileManager.default.contentsOfDirectory(atPath: heapProfiles)
        #expect(profiles.contains((written as NSString).lastPathComponent), "\(profiles)")
        let pprofDirectory = try GoPprof.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: pprofDirectory) }
        let top = try GoPprof.run(["-sample_index=inuse_space", "-top", written], in: pprofDirectory)
        #expect(try GoPprof.topRows(top.stdout).first?.contains("hogMemoryInHelper") == true, "\(top.stdout)")

        let next = try Self.start(
            "clean", breadcrumb: breadcrumb, jsonLines: jsonLines, cgroup: cgroup, heapProfiles: heapProfiles)
        next.process.waitUntilExit()
        let previous = try #require(next.previous)
        #expect(previous.reason == .killedForMemory && previous.confidence == .certain, "\(previous)")
        #expect(previous.oomKillsThen == 0 && previous.oomKillsNow == 1)
        #expect(previous.evidence.contains { $0.contains("counted 1 OOM kill") })
        #expect(previous.pid == hog.process.processIdentifier)
        #expect(previous.lastPhase == "allocating")
        #expect((previous.memory.usageBytes ?? 0) > 48 << 20)  // its last figures, near the end
        // Its last heap profile: the newest of the killed instance's files.
        let last = profiles.filter { $0.hasPrefix("heap-\(hog.process.processIdentifier)-") }.sorted().last
        #expect(previous.heapProfile.map { ($0 as NSString).lastPathComponent } == last, "\(previous)")
        let logged = Self.records(jsonLines).filter { $0["type"] as? String == "previous-exit" }
        #expect(logged.last?["reason"] as? String == "killed-for-memory")
    }

    @Test func aCleanStopIsReadAsClean() throws {
        let (directory, breadcrumb, jsonLines) = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try Self.start("clean", breadcrumb: breadcrumb, jsonLines: jsonLines)
        first.process.waitUntilExit()
        #expect(first.process.terminationStatus == 0)
        let second = try Self.start("clean", breadcrumb: breadcrumb, jsonLines: jsonLines)
        second.process.waitUntilExit()
        #expect(second.previous?.reason == .clean)
        #expect(second.previous?.pid == first.process.processIdentifier)
    }

    @Test func aSegmentationFaultIsReadAsCrashed() throws {
        let (directory, breadcrumb, jsonLines) = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try Self.start("segfault", breadcrumb: breadcrumb, jsonLines: jsonLines)
        first.process.waitUntilExit()
        // The crash handler handed the signal on: the process still died of it.
        #expect(first.process.terminationReason == .uncaughtSignal && first.process.terminationStatus == SIGSEGV)
        let second = try Self.start("clean", breadcrumb: breadcrumb, jsonLines: jsonLines)
        second.process.waitUntilExit()
        #expect(
            second.previous?.reason == .crashed && second.previous?.signal == SIGSEGV,
            "\(String(describing: second.previous))")
    }

    @Test func aSIGKILLWithoutMemoryTroubleIsKilledOtherwise() throws {
        let (directory, breadcrumb, jsonLines) = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // In a cgroup of its own where one can be made (a limit it never nears): its pressure is then
        // its own, not the machine's, which the OOM tests running beside it raise.
        let cgroup =
            MemoryLimitedCgroup.unavailable == nil
            ? try MemoryLimitedCgroup(
                name: "perfkit-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))", limitBytes: 1 << 30)
            : nil
        defer { cgroup?.remove() }
        let first = try Self.start("wait", breadcrumb: breadcrumb, jsonLines: jsonLines, cgroup: cgroup)
        Thread.sleep(forTimeInterval: 0.1)
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        let second = try Self.start("clean", breadcrumb: breadcrumb, jsonLines: jsonLines)
        second.process.waitUntilExit()
        #expect(second.previous?.reason == .killedOtherwise, "\(String(describing: second.previous))")
    }

    @Test func aBreadcrumbKeptByARunningInstanceIsRefused() throws {
        let (directory, breadcrumb, jsonLines) = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try Self.start("wait", breadcrumb: breadcrumb, jsonLines: jsonLines)
        defer {
            kill(first.process.processIdentifier, SIGKILL)
            first.process.waitUntilExit()
        }
        #expect(throws: MemoryWatchError.self) { try previousExit(breadcrumb: breadcrumb) }
        let watch = MemoryWatch(configuration: MemoryWatchConfiguration(breadcrumbPath: breadcrumb))
        do {
            try watch.start()
            Issue.record("a second instance took the breadcrumb")
        } catch let error as MemoryWatchError {
            #expect(error.kind == .breadcrumbInUse)
            #expect(error.message.contains("pid \(first.process.processIdentifier)"))
        }
    }

    @Test func aFileThatIsNoBreadcrumbIsNotOverwritten() throws {
        let (directory, breadcrumb, _) = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("precious data\n".utf8).write(to: URL(fileURLWithPath: breadcrumb))
        let watch = MemoryWatch(configuration: MemoryWatchConfiguration(breadcrumbPath: breadcrumb))
        #expect(throws: MemoryWatchError.self) { try watch.start() }
        #expect(try String(contentsOfFile: breadcrumb, encoding: .utf8) == "precious data\n")
    }
}
