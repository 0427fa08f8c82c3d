import CProbe
import Foundation
@_spi(Benchmarks) @testable import Probe
import Synchronization
import Testing

/// Whole-process profiles and thread dumps, read back by the real pprof (`go tool pprof`).
@Suite(.serialized) struct ProcessProfilerTests {
    /// A thread of the test's own, named, that runs `body` until stopped, with the sampling signal
    /// unblocked, or blocked with `blockingSignal` (threads started from a libdispatch worker
    /// inherit a mask that blocks it, unless Probe prepared that worker).
    final class TestThread: Sendable {
        let stop = Atomic<Bool>(false)
        let tid = Atomic<Int32>(0)
        private let exited = DispatchSemaphore(value: 0)

        init(name: String, blockingSignal: Bool = false, _ body: @escaping @Sendable (TestThread) -> Void) {
            let started = DispatchSemaphore(value: 0)
            let thread = Thread { [self] in
                _ = cprobe_set_thread_name(name)
                if blockingSignal {
                    var set = sigset_t()
                    sigemptyset(&set)
                    sigaddset(&set, WatchdogConfiguration.defaultSignal)
                    pthread_sigmask(SIG_BLOCK, &set, nil)
                } else {
                    _ = cprobe_prepare_thread(WatchdogConfiguration.defaultSignal)
                }
                tid.store(cprobe_gettid(), ordering: .relaxed)
                started.signal()
                body(self)
                exited.signal()
            }
            thread.start()
            started.wait()
        }

        func finish() {
            stop.store(true, ordering: .relaxed)
            exited.wait()
        }
    }

    func spinner(name: String, blockingSignal: Bool = false) -> TestThread {
        TestThread(name: name, blockingSignal: blockingSignal) { thread in
            while !thread.stop.load(ordering: .relaxed) { _ = processProfilerTestSpin(100_000) }
        }
    }

    /// A thread blocked in `read` on a pipe until `release` writes a byte to it and waits for it.
    func blockedReader(name: String) -> (thread: TestThread, release: () -> Void) {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let (readFD, writeFD) = (fds[0], fds[1])
        let reader = TestThread(name: name) { _ in
            var byte: UInt8 = 0
            _ = read(readFD, &byte, 1)
            close(readFD)
        }
        return (
            reader,
            {
                var byte: UInt8 = 1
                _ = write(writeFD, &byte, 1)
                reader.finish()
                close(writeFD)
            }
        )
    }

    func save(_ data: Data, in directory: URL, name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    @Test func aSpinningFunctionTopsTheCPUProfile() throws {
        let spinning = spinner(name: "prof-spin")
        defer { spinning.finish() }
        let profile = try #require(try ProcessProfiler().takeProfile(ProfileRequest(duration: .seconds(1))))
        #expect(profile.sampleCount > 20, "\(profile.failures)")
        let directory = try GoPprof.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try save(profile.pprof, in: directory, name: "cpu.pb")
        let top = try GoPprof.run(["-top", file.path], in: directory)
        #expect(top.status == 0, "\(top.stderr)")
        let rows = try GoPprof.topRows(top.stdout)
        #expect(rows.first?.contains("processProfilerTestSpin") == true, "\(top.stdout)")
        #expect(top.stdout.contains("Type: cpu"), "\(top.stdout)")
        let comments = try GoPprof.run(["-comments", file.path], in: directory)
        #expect(comments.stdout.contains("sample_failures: "), "\(comments.stdout)")
        #expect(comments.stdout.contains("mode=cpu rate=100Hz"), "\(comments.stdout)")
        // Labels: the thread's name and kind.
        let tags = try GoPprof.run(["-tags", file.path], in: directory)
        #expect(tags.stdout.contains("prof-spin"), "\(tags.stdout)")
        // Probe's own threads are never the service's: the frame-pointer classifier, started with the
        // profile, was counted as a thread blocking the signal (half the profile, 2026-11-28).
        #expect(!tags.stdout.contains("probe-"), "\(tags.stdout)")
        #expect(tags.stdout.contains("thread_kind") && tags.stdout.contains("other"), "\(tags.stdout)")
    }

    @Test func aCPUProfileAccountsForTheThreadsCPUTime() throws {
        let spinning = spinner(name: "prof-account")
        defer { spinning.finish() }
        let profiler = ProcessProfiler()
        _ = try profiler.takeProfile(ProfileRequest(duration: .milliseconds(50)))  // the unwinder's set-up
        let tid = spinning.tid.load(ordering: .relaxed)
        let before = cprobe_thread_cpu_ns(tid)
        let profile = try #require(try profiler.takeProfile(ProfileRequest(duration: .milliseconds(500))))
        let used = Double(cprobe_thread_cpu_ns(tid) - before) / 1e6
        let directory = try GoPprof.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try save(profile.pprof, in: directory, name: "cpu.pb")
        // `accounting for` sums the focused samples (every node kept); `of … total` is the whole profile's.
        let top = try GoPprof.run(
            ["-top", "-unit=ms", "-nodefraction=0", "-tagfocus", "thread=prof-account", file.path], in: directory)
        let match = try #require(top.stdout.firstMatch(of: /accounting for ([0-9.]+)ms/), "\(top.stdout)")
        let profiled = try #require(Double(match.1))
        // Every sample stands for one interval of the thread's own CPU clock: the sum is its CPU time
        // over the profile, short of less than one interval.
        #expect(
            abs(profiled - used) <= 0.1 * used,
            "profiled \(profiled) ms of \(used) ms; \(profile.failures)\n\(top.stdout)")
    }

    /// A thread that computes in bursts of ~2 ms and sleeps 1 ms between: its CPU samples land in
    /// the burst, not in the sleep it is back in by the time a sampler that polls states signals it.
    @Test func aBurstyThreadsSamplesLandWhereItsCPUTimeWent() throws {
        let start = cprobe_self_thread_cpu_ns()
        _ = processProfilerTestSpin(100_000)
        let perIteration = Double(max(1, cprobe_self_thread_cpu_ns() - start)) / 100_000
        let burst = Int(2_000_000 / perIteration)
        let bursty = TestThread(name: "prof-bursty") { thread in
            while !thread.stop.load(ordering: .relaxed) {
                _ = processProfilerTestSpin(burst)
                usleep(1000)
            }
        }
        defer { bursty.finish() }
        let profile = try #require(
            try ProcessProfiler().takeProfile(ProfileRequest(duration: .seconds(1), rate: 200)))
        let directory = try GoPprof.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try save(profile.pprof, in: directory, name: "cpu.pb")
        let top = try GoPprof.run(
            ["-top", "-unit=ms", "-nodefraction=0", "-tagfocus", "thread=prof-bursty", file.path], in: directory)
        let rows = try GoPprof.topRows(top.stdout)
        #expect(rows.first?.contains("processProfilerTestSpin") == true, "\(top.stdout)")
        let sleeping = rows.filter { $0.contains("nanosleep") || $0.contains("usleep") }
        let sleepShare = sleeping.compactMap { row in
            row.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.map { Double($0.dropLast()) }
        }.compactMap { $0 }.reduce(0, +)
        #expect(sleepShare < 10, "\(sleepShare)% of the samples in the sleep\n\(top.stdout)")
    }

    @Test func theCPUTimersSignalIsUnwoundIntoTheRing() throws {
        let samples = try CPUTimerSamples()
        #expect(samples.sample(3) > 2)
    }

    @Test func aThreadBlockedInReadShowsItsSyscallInTheWallProfile() throws {
        let (_, release) = blockedReader(name: "prof-reader")
        defer { release() }
        let profile = try #require(
            try ProcessProfiler().takeProfile(ProfileRequest(duration: .milliseconds(300), mode: .wall)))
        let directory = try GoPprof.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try save(profile.pprof, in: directory, name: "wall.pb")
        let top = try GoPprof.run(["-top", "-tagfocus", "thread=prof-reader", file.path], in: directory)
        #expect(top.status == 0, "\(top.stderr)")
        let rows = try GoPprof.topRows(top.stdout)
        #expect(rows.first?.contains("[syscall read]") == true, "\(top.stdout)")
        #expect(top.stdout.contains("Type: wall"), "\(top.stdout)")
        // The test runs on a thread of the cooperative pool, blocked in the profile meanwhile.
        let tags = try GoPprof.run(["-tags", "-tagfocus", "thread=oot.default-qos", file.path], in: directory)
        #expect(tags.stdout.contains("pool"), "\(tags.stdout)")
    }

    @Test func aThreadBlockingTheSignalIsCountedNotDropped() throws {
        let blocked = spinner(name: "prof-blocked", blockingSignal: true)
        defer { blocked.finish() }
        let tid = blocked.tid.load(ordering: .relaxed)
        try #require(ThreadInfo.blocks(signal: WatchdogConfiguration.defaultSignal, tid: tid))
        let profile = try #require(try ProcessProfiler().takeProfile(ProfileRequest(duration: .milliseconds(300))))
        #expect((profile.failures[.signalBlocked] ?? 0) > 0, "\(profile.failures)")
        let text = String(decoding: profile.pprof, as: UTF8.self)
        #expect(text.contains("sample_failures: ") && text.contains("signal-blocked="))
        #expect(text.contains("[not sampled: signal-blocked]"))
    }

    /// A thread that blocks the signal, then unblocks it (as a watchdog's first ping does on an event
    /// loop started from a pool thread): counted while blocked, sampled from then on.
    @Test func aThreadThatUnblocksTheSignalIsSampledFromThen() throws {
        let unblocking = TestThread(name: "prof-unblock", blockingSignal: true) { thread in
            let unblockAt = DispatchTime.now().uptimeNanoseconds + 300_000_000
            var unblocked = false
            while !thread.stop.load(ordering: .relaxed) {
                _ = processProfilerTestSpin(100_000)
                if !unblocked, DispatchTime.now().uptimeNanoseconds >= unblockAt {
                    _ = cprobe_unblock_signal(WatchdogConfiguration.defaultSignal)
                    unblocked = true
                }
            }
        }
        defer { unblocking.finish() }
        let profile = try #require(try ProcessProfiler().takeProfile(ProfileRequest(duration: .seconds(1))))
        #expect((profile.failures[.signalBlocked] ?? 0) > 0, "\(profile.failures)")
        let directory = try GoPprof.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try save(profile.pprof, in: directory, name: "cpu.pb")
        let top = try GoPprof.run(["-top", "-tagfocus", "thread=prof-unblock", file.path], in: directory)
        #expect(top.stdout.contains("processProfilerTestSpin"), "\(top.stdout)")
    }

    @Test func badRequestsThrowNamingTheParameter() {
        let profiler = ProcessProfiler()
        let bad: [(ProfileRequest, String)] = [
            (ProfileRequest(duration: .seconds(1), rate: 0), "rate"),
            (ProfileRequest(duration: .seconds(1), rate: 1001), "rate"),
            (ProfileRequest(duration: .zero), "duration"),
            (ProfileRequest(duration: .seconds(-1)), "duration"),
            (ProfileRequest(duration: .seconds(301)), "duration"),
        ]
        for (request, parameter) in bad {
            #expect {
                _ = try profiler.takeProfile(request)
            } throws: { error in
                guard let error = error as? ProcessProfiler.ProfileError else { return false }
                return error.parameter == parameter && error.message.hasPrefix(parameter)
                    && !error.message.contains("\n")
            }
        }
    }

    @Test func cancellationReturnsNilWithinATick() throws {
        let asked = Atomic<Bool>(false)
        let cancelled = Atomic<Bool>(false)
        let start = ContinuousClock.now
        let result = try ProcessProfiler().takeProfile(ProfileRequest(duration: .seconds(60), rate: 10)) {
            asked.store(true, ordering: .relaxed)
            if ContinuousClock.now - start > .milliseconds(200) { cancelled.store(true, ordering: .relaxed) }
            return cancelled.load(ordering: .relaxed)
        }
        #expect(result == nil)
        let wasAsked = asked.load(ordering: .relaxed)
        #expect(wasAsked)
        // Behaviour, not speed: returned long before the 60 s asked for (about a tick after cancelling).
        #expect(ContinuousClock.now - start < .seconds(30))
    }

    @Test func aSecondConcurrentProfileIsRefused() throws {
        let profiler = ProcessProfiler()
        let first = Thread {
            _ = try? profiler.takeProfile(ProfileRequest(duration: .milliseconds(600), rate: 10))
        }
        first.start()
        // Until the first has claimed the profiler, a second may still get it: retry briefly.
        var refused = false
        for _ in 0..<20 where !refused {
            Thread.sleep(forTimeInterval: 0.02)
            do {
                _ = try profiler.takeProfile(ProfileRequest(duration: .milliseconds(10), rate: 100))
            } catch {
                refused = error.kind == .busy
            }
        }
        #expect(refused)
        Thread.sleep(forTimeInterval: 0.8)
    }

    @Test func theThreadDumpShowsEveryThreadInGoLayout() throws {
        let (reader, release) = blockedReader(name: "prof-dumped")
        defer { release() }
        Thread.sleep(forTimeInterval: 0.05)
        let profiler = ProcessProfiler()
        let text = profiler.threadDumpText()
        let tid = reader.tid.load(ordering: .relaxed)
        let blocks = text.components(separatedBy: "\n\n")
        let block = try #require(blocks.first { $0.hasPrefix("thread \(tid) [prof-dumped, S]:\n") }, "\(text)")
        let lines = block.split(separator: "\n")
        #expect(lines[1] == "[syscall read]", "\(block)")
        #expect(lines.dropFirst(2).contains { $0.contains(" +0x") }, "\(block)")
        #expect(!text.contains("[probe-sampling"), "Probe's own thread is left out")

        let directory = try GoPprof.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try save(profiler.threadDumpProfile(), in: directory, name: "threads.pb")
        let top = try GoPprof.run(["-top", "-tagfocus", "thread=prof-dumped", file.path], in: directory)
        #expect(top.status == 0, "\(top.stderr)")
        #expect(try GoPprof.topRows(top.stdout).first?.contains("[syscall read]") == true, "\(top.stdout)")
    }

    @Test func noThreadOrDescriptorOrTimerOutlivesAProfile() throws {
        let timersBefore = Self.cpuTimers()
        let profiler = ProcessProfiler()
        _ = try profiler.takeProfile(ProfileRequest(duration: .milliseconds(200), mode: .wall))
        _ = try profiler.takeProfile(ProfileRequest(duration: .milliseconds(200), mode: .cpu))
        _ = profiler.threadDumpText()
        // Other suites may run meanwhile: count what a profile opens (task files, its thread).
        var left = (threads: 0, fds: 0)
        for _ in 0..<100 {
            left = (Self.threads(named: "probe-sampling"), Self.taskDescriptors())
            if left == (0, 0) { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect(left.threads == 0)
        #expect(left.fds == 0)
        #expect(Self.cpuTimers() == timersBefore)
    }

    /// The process's POSIX timers signalling a thread (`/proc/self/timers`): the cpu sampler's.
    static func cpuTimers() -> Int {
        (ThreadInfo.read("/proc/self/timers") ?? "").split(separator: "\n").filter { $0.hasPrefix("notify:") }.count
    }

    /// `threadKinds` leaves the other threads out: a spinning `other` thread is absent from a
    /// profile of the pool's threads and present in one of `other` threads.
    @Test func aProfileOfSomeKindsLeavesTheOtherThreadsOut() throws {
        let spinning = spinner(name: "prof-kinds")
        defer { spinning.finish() }
        let profiler = ProcessProfiler()
        let poolOnly = try #require(
            try profiler.takeProfile(ProfileRequest(duration: .milliseconds(300), threadKinds: [.pool])))
        let others = try #require(
            try profiler.takeProfile(ProfileRequest(duration: .milliseconds(300), threadKinds: [.other])))
        let directory = try GoPprof.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let poolTags = try GoPprof.run(
            ["-tags", try save(poolOnly.pprof, in: directory, name: "pool.pb").path], in: directory)
        let otherTags = try GoPprof.run(
            ["-tags", try save(others.pprof, in: directory, name: "other.pb").path], in: directory)
        #expect(!poolTags.stdout.contains("prof-kinds"), "\(poolTags.stdout)")
        #expect(otherTags.stdout.contains("prof-kinds"), "\(otherTags.stdout)")
        #expect(ProfileSamples.threadKind(ofThreadNamed: "prof-kinds") == .other)
        // By name: a prefix of this thread's name keeps it alone (with its kind, or any kind).
        let named = try #require(
            try profiler.takeProfile(ProfileRequest(duration: .milliseconds(300), threadNames: ["prof-kin"])))
        let namedTags = try GoPprof.run(
            ["-tags", try save(named.pprof, in: directory, name: "named.pb").path], in: directory)
        #expect(namedTags.stdout.contains("prof-kinds") && !namedTags.stdout.contains("oot.default-qos"))
        #expect(
            !ProfileRequest(duration: .seconds(1), threadKinds: [.pool], threadNames: ["prof"]).selects(
                threadNamed: "prof-kinds"))
    }

    @Test func threadKindsFollowTheirNames() {
        #expect(ProfileSamples.threadKind(ofThreadNamed: "NIO-ELT-0-#3").rawValue == "event-loop")
        #expect(ProfileSamples.threadKind(ofThreadNamed: "NIO-SGLTN-1-#0") == .eventLoop)
        #expect(ProfileSamples.threadKind(ofThreadNamed: "oot.default-qos").rawValue == "pool")
        #expect(ProfileSamples.threadKind(ofThreadNamed: "worker").rawValue == "other")
        #expect(
            ProfileSamples.failureComment([.exited: 1, .signalBlocked: 3])
                == "sample_failures: signal-blocked=3 exited=1")
        #expect(ProfileSamples.failureComment([:]) == "sample_failures: none")
    }

    static func threads(named name: String) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { ThreadInfo.read("/proc/self/task/\($0)/comm") == name + "\n" }.count
    }

    /// Descriptors open on `/proc/self/task` and its threads' `stat` and `syscall`: the profiler's,
    /// while it samples (`directoryOnly`: the directory alone, which watchdogs never keep open).
    static func taskDescriptors(directoryOnly: Bool = false) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { fd in
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")) ?? ""
            return target.hasPrefix("/proc/")
                && (target.hasSuffix("/task")
                    || !directoryOnly && (target.hasSuffix("/stat") || target.hasSuffix("/syscall")))
        }.count
    }
}

/// A function of the tests' own for the profile to find, its own leaf: a `for … in 0..<count` in a
/// debug build spends half its time in `IndexingIterator.next()`, which then tops a profile by flat
/// time as often as not (CI, 2026-11-28: 51.6% against 48.4%).
@inline(never) func processProfilerTestSpin(_ count: Int) -> Int {
    var value = 0
    var index = 0
    while index < count {
        value = value &* 31 &+ index
        index &+= 1
    }
    return value
}

/// `go tool pprof`, as PerfkitCLITests runs it: a home, build cache and temporary directory of
/// its own, the local toolchain only (never a download).
enum GoPprof {
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("probe-pprof-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func run(_ arguments: [String], in directory: URL) throws -> Outcome {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let go = try #require(
            path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("go") }
                .first { FileManager.default.isExecutableFile(atPath: $0.path) },
            "go is not installed: run `apt-get install -y golang-go` (scripts/setup.sh installs it)")
        let home = directory.appendingPathComponent("go-home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        // Shared across runs: Go 1.25+ builds pprof at its first use and keeps it in the build cache
        // (minutes under emulation, every time with a fresh cache).
        environment["GOCACHE"] = FileManager.default.temporaryDirectory.appendingPathComponent("perfkit-go-cache").path
        environment["GOPATH"] = home.appendingPathComponent("path").path
        environment["GOTOOLCHAIN"] = "local"
        environment["GOFLAGS"] = "-mod=mod"
        environment["PPROF_TMPDIR"] = home.path
        let run = try ChildProcess.run(go, ["tool", "pprof"] + arguments, environment: environment)
        return Outcome(status: run.status, stdout: run.stdout, stderr: run.stderr)
    }

    /// `-top`'s rows after its header line (`flat  flat%   sum%        cum   cum%`), first first.
    static func topRows(_ top: String) throws -> [String] {
        let lines = top.split(separator: "\n").map(String.init)
        let header = try #require(lines.firstIndex { $0.contains("flat%") }, "no rows in:\n\(top)")
        return Array(lines[(header + 1)...])
    }
}
