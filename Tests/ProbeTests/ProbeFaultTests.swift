import Foundation
@testable import Probe
import Synchronization
import Testing

/// A service's bad day, each fault done to a real `probe-test-helper` running Probe as a service
/// does (Sources/Probe/probe-test-helper/Faults.swift): what must hold is that Probe never crashes it, never
/// loses a record silently and keeps answering.
@Suite(.serialized)
struct ProbeFaultTests {
    /// A helper in `stall-writer` mode, driven line by line.
    final class StallWriter {
        let helper: RunningHelper
        let port: Int
        var process: Process { helper.process }

        init(jsonLines: String) throws {
            helper = try RunningHelper(["stall-writer", jsonLines])
            port = RunningHelper.value("port", in: helper.lines(through: "ready")) ?? 0
        }

        /// Sends `command` and returns the helper's answer line.
        func ask(_ command: String) -> String? {
            helper.send(command)
            return helper.readLine()
        }

        /// `stalled stalls=2 unwritten=1` → (2, 1).
        func stall() -> (stalls: Int, unwritten: Int)? {
            guard let answer = ask("stall") else { return nil }
            let values = answer.split(separator: " ").compactMap { $0.split(separator: "=").last.flatMap { Int($0) } }
            return values.count == 2 ? (values[0], values[1]) : nil
        }

        func exit() -> Int32 {
            helper.send("exit")
            return helper.finish()
        }
    }

    static func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("probe-faults-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Each line of a JSON-lines file as an object; nil for a line that is not one (half a record).
    static func lines(_ path: String) -> [[String: Any]?] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    static let canMount: Bool = {
        guard geteuid() == 0, let directory = try? ProbeFaultTests.scratch() else { return false }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        guard mount("tmpfs", directory, "tmpfs", 0, "size=64k") == 0 else { return false }
        umount(directory)
        return true
    }()

    /// The stalls file on a full filesystem (a 64 KiB tmpfs with one page left): the service runs
    /// on, the record that does not fit is counted as unwritten and nothing of it is left in the
    /// file (every line a whole record); once space returns, the next record is written whole.
    @Test(.enabled(if: canMount, "needs root to mount a small tmpfs"))
    func aFullDiskCountsTheRecordAndLeavesNoHalfLine() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try #require(mount("tmpfs", directory, "tmpfs", 0, "size=64k") == 0)
        defer { umount(directory) }
        let filler = directory + "/filler"
        let fd = open(filler, O_WRONLY | O_CREAT, 0o644)
        let page = [UInt8](repeating: 7, count: 4096)
        var filled = 0
        while write(fd, page, page.count) == page.count { filled += page.count }
        #expect(errno == ENOSPC)
        #expect(ftruncate(fd, off_t(filled - 4096)) == 0)  // one page free
        close(fd)

        let stalls = directory + "/stalls.jsonl"
        let helper = try StallWriter(jsonLines: stalls)
        // Records of 3-5 KB until one does not fit (the first may, when its stall took few samples).
        var last = (stalls: 0, unwritten: 0)
        while last.unwritten == 0 && last.stalls < 5 { last = try #require(helper.stall()) }
        #expect(last.unwritten == 1, "\(last)")
        let kept = Self.lines(stalls)
        #expect(kept.allSatisfy { $0 != nil }, "a partial record was left: \(kept)")
        #expect(kept.count == last.stalls - 1)

        try FileManager.default.removeItem(atPath: filler)
        let after = try #require(helper.stall())
        #expect(after.stalls == last.stalls + 1 && after.unwritten == 1, "\(after)")
        let written = Self.lines(stalls)
        #expect(written.count == kept.count + 1 && written.allSatisfy { $0 != nil }, "\(written)")
        #expect(written.last??["watchdog"] as? String == "faults")
        #expect(helper.exit() == 0)
    }

    /// The service has opened every descriptor it may (RLIMIT_NOFILE): stalls are still recorded
    /// (through a descriptor kept from the start), the profile server answers 503 saying why, and
    /// both work as before once descriptors are free again.
    @Test func outOfDescriptorsStallsAreRecordedAndTheServerSaysWhy() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stalls = directory + "/stalls.jsonl"
        let helper = try StallWriter(jsonLines: stalls)
        #expect(TestHTTP.get(helper.port, "/health")?.status == 200)
        let exhausted = try #require(helper.ask("exhaust"))
        #expect(exhausted.hasPrefix("exhausted="), "\(exhausted)")

        let refused = try #require(TestHTTP.get(helper.port, "/health"))
        #expect(refused.status == 503 && refused.text.contains("out of file descriptors"), "\(refused.text)")
        let stall = try #require(helper.stall())
        #expect(stall.stalls == 1 && stall.unwritten == 0, "\(stall)")
        #expect(Self.lines(stalls).count == 1 && Self.lines(stalls).allSatisfy { $0 != nil })

        #expect(helper.ask("release") == "released")
        #expect(TestHTTP.get(helper.port, "/health")?.status == 200)
        #expect(helper.stall()?.unwritten == 0)
        #expect(Self.lines(stalls).count == 2)
        #expect(helper.exit() == 0)
    }

    /// 1,000 connections that never send a request, some of them a slow loris's half request: a
    /// prompt request is still answered at once, and the server holds a bounded number of
    /// descriptors and no thread per connection.
    @Test func aFloodOfIdleConnectionsDoesNotKeepAPromptRequestOut() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        let saved = limit
        limit.rlim_cur = min(limit.rlim_max, 4096)
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        defer {
            var restored = saved
            setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &restored)
        }
        try #require(limit.rlim_cur >= 1200, "this test needs 1,200 descriptors (RLIMIT_NOFILE \(limit.rlim_cur))")
        let helper = try StallWriter(jsonLines: directory + "/stalls.jsonl")
        let pid = helper.process.processIdentifier
        func count(_ folder: String) -> Int {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/\(folder)").count) ?? -1
        }
        let threadsBefore = count("task")
        var idle: [Int32] = []
        defer { for fd in idle { close(fd) } }
        for index in 0..<1000 {
            let fd = TestHTTP.connect(port: helper.port)
            if index % 10 == 0 { TestHTTP.send(fd, "GET /he") }  // a slow loris: never finished
            idle.append(fd)
        }
        let asked = ContinuousClock.now
        let health = TestHTTP.get(helper.port, "/health")
        let waited = ContinuousClock.now - asked
        #expect(health?.status == 200)
        #expect(waited < .seconds(5), "answered after \(waited)")
        // No thread per connection; sockets bounded: 64 waiting, the listening one, the wake pair.
        #expect(count("task") <= threadsBefore + 2, "threads \(threadsBefore) -> \(count("task"))")
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        let sockets = descriptors.compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")
        }.filter { $0.hasPrefix("socket:") }
        #expect(sockets.count <= 64 + 3 + 1, "\(sockets.count) sockets")
        #expect(helper.stall()?.stalls == 1)  // the watched loop never waited on any of it
        #expect(helper.exit() == 0)
    }

    /// fork while a 1000 Hz cpu profile and the flight recorder's timers run: every child, which
    /// spins 20 ms of CPU before exec or exit, ends cleanly (no timer followed it into the child).
    @Test func childrenForkedWhileTimersRunStartClean() throws {
        let run = try ChildProcess.run(
            URL(fileURLWithPath: builtExecutable("probe-test-helper")), ["fork-exec", "100"], seconds: 60)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("clean=100 of 100"), "\(run.stdout)")
    }

    /// Probe's start-up work reads every module's symbols and code; done with blocks malloc maps and
    /// then frees, it raised glibc's mmap threshold for the whole service (to 1 MiB, 2026-12-05), after
    /// which the service's blocks below it stayed in malloc's arenas: RSS that grew for minutes. So did
    /// a stall's work later (records, the frames' cache, the task scan: to 516 KiB in a soak, 2026-12-07).
    /// A block malloc mapped before is still mapped after both. Where something before Probe had raised
    /// the threshold already, this checks only that Probe raised it no further, and says so.
    @Test(
        .disabled(
            if: ThreadInfo.procDescribesAnotherArchitecture,
            "emulated: in the sid arm64 root under qemu-user, malloc mapped not even a 2 MiB block of a plain C program (mallinfo2's hblkhd), so which blocks it maps says nothing of its threshold there (2026-12-07)"
        ))
    func probesWorkLeavesMallocsMmapThresholdAlone() throws {
        let run = try ChildProcess.run(
            URL(fileURLWithPath: builtExecutable("probe-test-helper")), ["malloc-threshold"], seconds: 60)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("record=written"), "\(run.stdout)")
        #expect(run.stdout.contains("after=true"), "\(run.stdout)")
        #expect(run.stdout.contains("steady=true"), "\(run.stdout)")
        if !run.stdout.contains("before=true") {
            print("probesWorkLeavesMallocsMmapThresholdAlone: raised before Probe ran, \(run.stdout)")
        }
    }

    /// Threads made and ended at 12,000 a minute for 10 s while a cpu profile, the flight
    /// recorder and a watchdog run: no crash, and afterwards the same descriptors (but those of module
    /// files whose symbols the symbolicator keeps, one per module met in a stack), no POSIX timer
    /// left, and resident memory within 4 MiB of before.
    @Test func threadChurnLeavesNoDescriptorTimerOrMemoryBehind() throws {
        let run = try ChildProcess.run(
            URL(fileURLWithPath: builtExecutable("probe-test-helper")), ["thread-churn", "10"], seconds: 90)
        #expect(run.status == 0, "\(run.stderr)")
        let words = run.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" })
        func pair(_ name: String) -> (Int, Int)? {
            guard let word = words.first(where: { $0.hasPrefix(name + "=") }) else { return nil }
            let values = word.dropFirst(name.count + 1).components(separatedBy: "->").compactMap { Int($0) }
            return values.count == 2 ? (values[0], values[1]) : nil
        }
        let threads = words.first { $0.hasPrefix("threads=") }.flatMap { Int($0.dropFirst("threads=".count)) } ?? 0
        // qemu-user makes threads slower (1,280 in the 10 s on 2026-12-07): the churn still ran there.
        #expect(threads >= (ThreadInfo.procDescribesAnotherArchitecture ? 1_000 : 1_600), "\(run.stdout)")
        let fds = try #require(pair("fds"), "\(run.stdout)")
        #expect(fds.0 == fds.1, "\(run.stdout)")
        let timers = try #require(pair("timers"), "\(run.stdout)")
        #expect(timers.1 <= timers.0, "\(run.stdout)")
        // qemu-user's own memory is the process's: 1,280 threads made and joined by a plain C program grew
        // its RSS by 390 MB there, Probe or not (2026-12-07), so the bound is hardware's only.
        guard !ThreadInfo.procDescribesAnotherArchitecture else { return }
        let rss = try #require(pair("rssKiB"), "\(run.stdout)")
        #expect(rss.1 - rss.0 <= 4096, "\(run.stdout)")
    }

    /// The application installs its own handler for Probe's signal after Probe did: Probe notices,
    /// sends it nothing more (its timers stop too), says so in the watchdog's limitations and the
    /// profile's failures, and nothing crashes or hangs.
    @Test func aHandlerThatReplacesProbesIsNoticedAndSentNothing() throws {
        let run = try ChildProcess.run(
            URL(fileURLWithPath: builtExecutable("probe-test-helper")), ["signal-taken"], seconds: 60)
        #expect(run.status == 0, "\(run.stderr)")
        let words = run.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" })
        func value(_ name: String) -> String? {
            words.first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
        }
        #expect(value("more") == "0", "\(run.stdout)")  // nothing reached the application's handler after
        #expect(value("stalls") == "1", "\(run.stdout)")
        let sampled = try #require(value("sampled")?.split(separator: "/").compactMap { Int($0) }, "\(run.stdout)")
        #expect(sampled.count == 2 && sampled[0] == sampled[1], "every sample unanswered: \(run.stdout)")
        #expect(value("profile-failures")?.contains("handler-taken") == true, "\(run.stdout)")
        #expect(
            run.stdout.contains("limitation=signal") && run.stdout.contains("handler was replaced"), "\(run.stdout)")
    }
}
