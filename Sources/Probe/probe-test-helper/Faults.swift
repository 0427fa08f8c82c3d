// A service's bad day, for ProbeFaultTests: each mode runs Probe the way a service does and then
// does to the process what the fault does, printing what the test checks.
import CProbe
import Foundation
@_spi(Benchmarks) import Probe
import Synchronization

/// A thread that owns its loop, as an event loop does: a turn of `turnMilliseconds` of work, its
/// heartbeat beating each turn; `stall()` makes the next turn 300 ms.
final class WatchedLoop: Sendable {
    let heartbeat: Heartbeat
    private let control = Control()

    private final class Control: Sendable {
        let stallRequested = Atomic<Bool>(false)
        let stopped = Atomic<Bool>(false)
    }

    init(turnMilliseconds: Int = 2) {
        let made = Mutex<Heartbeat?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let control = self.control
        Thread {
            let heartbeat = Heartbeat.currentThread()
            made.withLock { $0 = heartbeat }
            ready.signal()
            while !control.stopped.load(ordering: .relaxed) {
                heartbeat.beat()
                if control.stallRequested.exchange(false, ordering: .relaxed) { spinInHelper(milliseconds: 300) }
                spinInHelper(milliseconds: turnMilliseconds)
            }
        }.start()
        ready.wait()
        heartbeat = made.withLock { $0! }
    }

    func stall() { control.stallRequested.store(true, ordering: .relaxed) }
    func stop() { control.stopped.store(true, ordering: .relaxed) }
}

/// `stall-writer JSONL`: a watched loop whose stalls go to JSONL, and a profile server; prints
/// `port=P` and `ready`, then answers stdin: `stall` (a 300 ms stall, then `stalled stalls=N
/// unwritten=M` once it is recorded), `exhaust` (opens /dev/null until the process has no descriptor
/// left: `exhausted=N`), `release` (closes them), `exit`.
func faultStallWriter(jsonLines: String) {
    let loop = WatchedLoop()
    var configuration = WatchdogConfiguration(name: "faults", threshold: .milliseconds(100))
    configuration.sampleInterval = .milliseconds(10)
    configuration.jsonLinesPath = jsonLines
    // Called after every outlet (the file among them) has had the record: the answer waits for it.
    let delivered = Atomic<Int>(0)
    configuration.onStall = { _ in delivered.add(1, ordering: .relaxed) }
    let watchdog = Watchdog(watching: .heartbeat(loop.heartbeat), configuration: configuration)
    let server = ProfileServer(configuration: .init())
    orExit {
        try watchdog.start()
        try server.start()
    }
    print("port=\(server.port ?? 0)")
    print("ready")
    fflush(nil)
    var held: [Int32] = []
    while let line = readLine() {
        switch line {
        case "stall":
            let before = delivered.load(ordering: .relaxed)
            loop.stall()
            let deadline = Date().addingTimeInterval(5)
            while delivered.load(ordering: .relaxed) == before, Date() < deadline { usleep(10_000) }
            print("stalled stalls=\(watchdog.statistics.stalls) unwritten=\(watchdog.unwrittenRecords)")
        case "exhaust":
            while true {
                let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
                if fd < 0 { break }
                held.append(fd)
            }
            print("exhausted=\(held.count)")
        case "release":
            for fd in held { close(fd) }
            held = []
            print("released")
        case "exit":
            server.stop()
            watchdog.stop()
            exit(0)
        default: break
        }
        fflush(nil)
    }
}

/// `fork-exec N`: a cpu profile at 1000 Hz and the flight recorder run while the main thread forks N
/// times; each child spins 20 ms of CPU (long enough for any timer it inherited to fire), then execs
/// /bin/true (even turns) or exits (odd ones). Prints `clean=C of N` (children that exited 0).
func faultForkExec(count: Int) {
    let flight = FlightRecorder()
    orExit { try flight.start() }
    let stop = Atomic<Bool>(false)
    let profiler = ProcessProfiler()
    let profiling = Thread {
        while !stop.load(ordering: .relaxed) {
            _ = try? profiler.takeProfile(ProfileRequest(duration: .seconds(1), rate: 1000, mode: .cpu)) {
                stop.load(ordering: .relaxed)
            }
        }
    }
    profiling.start()
    let spinner = Thread { while !stop.load(ordering: .relaxed) { spinInHelper(milliseconds: 5) } }
    spinner.start()
    Thread.sleep(forTimeInterval: 0.3)  // the profile's timers armed
    let argv: [UnsafeMutablePointer<CChar>?] = [strdup("true"), nil]
    var clean = 0
    for turn in 0..<count {
        let pid = fork()
        if pid == 0 {
            // Only async-signal-safe work here: a spin on the clock, then exec or _exit.
            var start = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
            var now = start
            while (now.tv_sec - start.tv_sec) * 1_000_000_000 + (now.tv_nsec - start.tv_nsec) < 20_000_000 {
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
            }
            if turn % 2 == 0 { execv("/bin/true", argv) }
            _exit(0)
        }
        var status: Int32 = 0
        if pid > 0, waitpid(pid, &status, 0) == pid, status == 0 { clean += 1 }
    }
    stop.store(true, ordering: .relaxed)
    flight.stop()
    print("clean=\(clean) of \(count)")
}

/// `thread-churn SECONDS`: for SECONDS, threads are made and ended at about 200 a second (12,000 a
/// minute), each spinning 1 ms, while a cpu profile, the flight recorder and a watchdog on a loop
/// run. Prints `threads=N`, then the process's descriptors, POSIX timers and RSS before and after
/// (everything stopped): `fds=A->B timers=C->D rssKiB=E->F` (descriptors but the symbolicator's module
/// files, counted as `symbol-files=N`); descriptors that differ, with what they name, as
/// `fd-added=FD:TARGET,…` and `fd-removed=…`, and the count 2 s later as `fds-later=N`.
func faultThreadChurn(seconds: Int) {
    // The module files whose symbols the symbolicator keeps are read through descriptors held for
    // good, one more as each new module shows up in a stack (liblzma under qemu, 2026-12-07): kept, not churn.
    func descriptors() -> Int {
        let held = Symbolicator.shared.heldImagePaths
        return targets().values.filter { !held.contains($0) }.count
    }
    func targets() -> [String: String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return Dictionary(
            names.map {
                ($0, (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) ?? "?")
            },
            uniquingKeysWith: { first, _ in first })
    }
    func difference(_ from: [String: String], _ to: [String: String]) -> String {
        to.filter { from[$0.key] != $0.value }.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }
            .joined(separator: ",")
    }
    func timers() -> Int {
        ((try? String(contentsOfFile: "/proc/self/timers", encoding: .utf8)) ?? "").split(separator: "\n")
            .filter { $0.hasPrefix("ID:") }.count
    }
    func rssKiB() -> Int {
        let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
        let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
    }
    // One warm-up round first: what Probe keeps for the life of the process (symbol tables, its
    // threads' stacks) is not churn.
    func round(_ seconds: Double) -> Int {
        let loop = WatchedLoop(turnMilliseconds: 1)
        let watchdog = Watchdog(watching: .heartbeat(loop.heartbeat), configuration: .init(name: "churn"))
        let flight = FlightRecorder()
        let profiler = ProcessProfiler()
        let profileDone = DispatchSemaphore(value: 0)
        orExit {
            try watchdog.start()
            try flight.start()
        }
        Thread {
            _ = try? profiler.takeProfile(ProfileRequest(duration: .milliseconds(Int64(seconds * 1000)), rate: 100)) {
                false
            }
            profileDone.signal()
        }.start()
        let end = Date().addingTimeInterval(seconds)
        var made = 0
        let group = DispatchGroup()
        while Date() < end {
            for _ in 0..<10 {
                group.enter()
                Thread {
                    spinInHelper(milliseconds: 1)
                    group.leave()
                }.start()
                made += 1
            }
            usleep(50_000)
        }
        group.wait()
        profileDone.wait()
        flight.stop()
        watchdog.stop()
        loop.stop()
        Thread.sleep(forTimeInterval: 0.2)
        return made
    }
    _ = round(1)
    let before = (descriptors(), timers(), rssKiB())
    let named = targets()
    let made = round(Double(seconds))
    let after = (descriptors(), timers(), rssKiB())
    let namedAfter = targets()
    print("threads=\(made)")
    print("fds=\(before.0)->\(after.0) timers=\(before.1)->\(after.1) rssKiB=\(before.2)->\(after.2)")
    print("symbol-files=\(Symbolicator.shared.heldImagePaths.count)")
    if before.0 != after.0 {
        // A leak stays; a descriptor of a thread still ending (emulation is slow) goes.
        print("fd-added=\(difference(named, namedAfter)) fd-removed=\(difference(namedAfter, named))")
        Thread.sleep(forTimeInterval: 2)
        print("fds-later=\(descriptors())")
    }
}

/// Signals the application's own handler got (it took Probe's signal after Probe installed it).
let applicationHandlerSignals = Atomic<Int>(0)

/// `signal-taken`: a watchdog on a loop and the flight recorder run; then the application installs
/// its own handler for Probe's signal. Prints `taken-after=N` (signals its handler got within 1.5 s:
/// timers armed before Probe noticed), then, 1.5 s later with a stall and a 1 s cpu profile
/// meanwhile, `more=M stalls=S sampled=SAMPLES/UNANSWERED profile-failures=F`, `limitation=<text or none>`.
func faultSignalTaken() {
    let loop = WatchedLoop()
    let watchdog = Watchdog(
        watching: .heartbeat(loop.heartbeat), configuration: .init(name: "taken", threshold: .milliseconds(100)))
    let flight = FlightRecorder()
    orExit {
        try watchdog.start()
        try flight.start()
    }
    Thread.sleep(forTimeInterval: 0.5)
    let signal = WatchdogConfiguration.defaultSignal
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in applicationHandlerSignals.add(1, ordering: .relaxed) }
    sigemptyset(&action.sa_mask)
    sigaction(signal, &action, nil)
    Thread.sleep(forTimeInterval: 1.5)
    let takenAfter = applicationHandlerSignals.load(ordering: .relaxed)
    print("taken-after=\(takenAfter)")
    loop.stall()
    let profile = try? ProcessProfiler().takeProfile(ProfileRequest(duration: .seconds(1), rate: 100, mode: .cpu))
    Thread.sleep(forTimeInterval: 0.5)
    let more = applicationHandlerSignals.load(ordering: .relaxed) - takenAfter
    let sampled = watchdog.recentStalls.last.map { "\($0.sampleCount)/\($0.unansweredSamples)" } ?? "none"
    let failures =
        profile.map { $0.failures.map { "\($0.key.rawValue):\($0.value)" }.sorted().joined(separator: ",") } ?? "none"
    let limitation = watchdog.limitations.first { $0.contains("handler was replaced") } ?? "none"
    print("more=\(more) stalls=\(watchdog.statistics.stalls) sampled=\(sampled) profile-failures=\(failures)")
    print("limitation=\(limitation)")
    loop.stop()
    flight.stop()
    watchdog.stop()
}

/// `malloc-threshold`: the smallest block glibc serves by `mmap` (its first threshold is 128 KiB, and
/// freeing a block it mapped raises the threshold to that block's size, for the whole process),
/// before and after Probe's start-up work (every module's symbols, frame-record verdicts and async
/// functions), and after the work of a service's stalls (a JSON-lines record of 300 KB, thousands of
/// frames symbolicated, a goroutine dump): prints `before=<129 KiB was mapped> after=<unchanged>
/// steady=<unchanged> mappedFrom=BEFORE->AFTER->STEADY`.
func faultMallocThreshold() {
    /// The smallest of 129 KiB, 258 KiB, … 32 MiB that malloc serves with a mapping of its own, 0 when
    /// none is. Any raise is seen: it is to a freed mapping's size, 132 KiB or more. Malloc maps a
    /// block only when no free chunk holds it, so the size is asked for until the free bytes are used
    /// up; the blocks are kept (freeing a mapped block is what raises the threshold).
    func smallestMapped(from smallest: Int) -> Int {
        var size = smallest
        while size <= 32 << 20 {
            for _ in 0..<(cprobe_malloc_free_bytes() / size + 8) {
                guard let block = malloc(size) else { return 0 }
                if cprobe_malloc_block_is_mapped(block) { return size }
            }
            size *= 2
        }
        return 0
    }
    let before = smallestMapped(from: 129 * 1024)
    Watchdog.finishStartUpWork()
    let after = before == 0 ? 0 : smallestMapped(from: before)

    struct Record: Encodable {
        var values: [[Int]]
        var names: [String: String]
    }
    let record = Record(  // in small blocks itself: freeing it must not raise the threshold
        values: (0..<400).map { row in (0..<100).map { (row * 100 + $0) &* 7_919 } },
        names: Dictionary(uniqueKeysWithValues: (0..<500).map { ("key\($0)", String(repeating: "n", count: 80)) }))
    let path = NSTemporaryDirectory() + "probe-malloc-threshold-\(getpid()).jsonl"
    defer { unlink(path) }
    let written = JSONLines.append(record, to: path) ?? "written"
    let main = UInt64(UInt(bitPattern: dlsym(dlopen(nil, RTLD_NOW), "main")))
    for offset in 0..<UInt64(6_000) { _ = Symbolicator.shared.symbolicate(address: main + offset * 16) }
    _ = ProcessProfiler().threadDumpText()
    let steady = after == 0 ? 0 : smallestMapped(from: after)
    print("record=\(written) before=\(before == 129 * 1024) after=\(after == before) steady=\(steady == after)")
    print("mappedFrom=\(before)->\(after)->\(steady)")
}
