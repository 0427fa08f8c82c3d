// A program the Probe tests launch in a child process:
//   probe-test-helper pause-target  — a watched busy loop; reads "stall" / "exit" lines on stdin,
//                                      so a test can SIGSTOP/SIGCONT it and check what was reported.
//   probe-test-helper startup       — marks startup phases (for `perfkit startup` and its test).
//   probe-test-helper starve-pool FILE — watches the cooperative pool, blocks every pool thread in
//                                      a semaphore wait for 600 ms, writes the stalls to FILE
//                                      (JSON lines) and prints the blocked threads' ids and the
//                                      busy periods excused as pauses of the process.
//   probe-test-helper idle-pool FILE — watches the cooperative pool for 1.5 s of light work.
//   probe-test-helper long-jobs | spin-beside-another-process | hook-taken | starve-then-stop FILE,
//   probe-test-helper long-spin FILE SECONDS — long jobs on an otherwise free pool (see each function).
//   probe-test-helper memory BREADCRUMB JSONL clean|hog|segfault|wait — a memory watch with a breadcrumb
//                                      (and a heap profiler writing into $PROBE_TEST_HEAP_DIR, when set).
//   probe-test-helper serve-starved — a ProfileServer on loopback, every pool thread blocked; prints
//                                      `blocked=N` and `port=P`, serves until its stdin closes.
//   probe-test-helper async-crash   — three awaits deep (after a real suspension), prints the async
//                                      frames of Probe's own unwind (`probe-async 0xADDRESS NAME`),
//                                      then crashes: run with SWIFT_BACKTRACE=enable=yes, the Swift
//                                      runtime's backtracer prints its `[async]` frames to compare.
//   probe-test-helper heap-hold     — a heap profiler at 64 KiB and a ProfileServer on loopback; keeps
//                                      64 MiB in `HeldRecord`s stored by `storeHeldRecords`, churns 1 GiB of
//                                      short-lived arrays in `churnShortArrays`; prints `port=P`, serves until
//                                      stdin closes.
//   probe-test-helper heap-fork N   — samples every allocation while one thread forks and execs
//                                      /bin/true N times and others allocate; prints `forks=N`.
//   probe-test-helper stall-writer JSONL | fork-exec N | thread-churn SECONDS | signal-taken |
//                                      malloc-threshold — faults
//                                      (Faults.swift).
// The pool tests run here, in a process of their own: in the test process, other tests' bodies
// occupy pool threads and would starve (or crowd) the pool at random.
import CProbe
import Foundation
@_spi(Benchmarks) import Probe
import ProbeHeap
import Synchronization

/// Runs `body`; a thrown error is printed (`error: …`, what the tests read) and ends the helper.
func orExit(_ body: () throws -> Void) {
    do { try body() } catch {
        print("error: \(error)")
        exit(1)
    }
}

@inline(never)
func spinInHelper(milliseconds: Int) {
    let end = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
    var x: UInt64 = 1
    while DispatchTime.now().uptimeNanoseconds < end { x = x &* 6_364_136_223_846_793_005 &+ 1 }
    if x == 42 { print("") }
}

func pauseTarget() {
    let stallRequested = Atomic<Bool>(false)
    let heartbeatBox = Mutex<Heartbeat?>(nil)
    let ready = DispatchSemaphore(value: 0)
    let thread = Thread {
        heartbeatBox.withLock { $0 = Heartbeat.currentThread() }
        let heartbeat = heartbeatBox.withLock { $0! }
        ready.signal()
        while true {
            heartbeat.beat()  // a loop that never waits: every turn is busy
            if stallRequested.exchange(false, ordering: .relaxed) { spinInHelper(milliseconds: 400) }
            spinInHelper(milliseconds: 2)
        }
    }
    thread.start()
    ready.wait()
    var configuration = WatchdogConfiguration(name: "helper", threshold: .milliseconds(100))
    configuration.sampleInterval = .milliseconds(20)
    let watchdog = Watchdog(watching: .heartbeat(heartbeatBox.withLock { $0! }), configuration: configuration)
    orExit { try watchdog.start() }
    print("ready")
    fflush(nil)
    while let line = readLine() {
        switch line {
        case "stall":
            let before = watchdog.statistics.stalls
            stallRequested.store(true, ordering: .relaxed)
            let deadline = Date().addingTimeInterval(3)
            while watchdog.statistics.stalls == before, Date() < deadline { usleep(10_000) }
            print("stalled")
        case "exit":
            watchdog.stop()
            let durations = watchdog.recentStalls.map { String(Int($0.durationNanoseconds / 1e6)) }
            print("stalls=\(watchdog.statistics.stalls) durations=\(durations.joined(separator: ","))")
            exit(0)
        default:
            break
        }
        fflush(nil)
    }
}

func startup() {
    Startup.mark("main")
    usleep(20_000)
    Startup.mark("config-loaded")
    usleep(30_000)
    Startup.mark("ready")
}

/// A watchdog on the cooperative pool writing its stalls to `path`; exits on failure.
func startPoolWatchdog(stallsPath path: String, maxSamplesPerStall: Int = 5000) -> Watchdog {
    var configuration = WatchdogConfiguration(name: "cooperative-pool", threshold: .milliseconds(100))
    configuration.sampleInterval = .milliseconds(20)
    configuration.maxSamplesPerStall = maxSamplesPerStall
    configuration.metrics = false
    configuration.jsonLinesPath = path
    let watchdog = Watchdog(watching: .cooperativePool, configuration: configuration)
    orExit { try watchdog.start() }
    return watchdog
}

/// The anti-pattern the cooperative-pool watchdog is for: a task waiting synchronously.
@inline(never)
func waitInsideTaskInHelper(_ semaphore: DispatchSemaphore) {
    semaphore.wait()
}

/// The threads the blocking tasks ran on.
final class BlockedThreads: Sendable {
    let ids = Mutex<[Int32]>([])
}

/// With PROBE_TEST_HELPER_UNNAMED_POOL=1 the pool's threads carry the process's name, as Debian's
/// swiftlang 6.2.3 leaves them: each is renamed before the watchdog starts, by the tasks that run on
/// it, and any thread named as a Dispatch worker later within a millisecond.
let poolUnnamed = ProcessInfo.processInfo.environment["PROBE_TEST_HELPER_UNNAMED_POOL"] == "1"
let processName =
    (try? String(contentsOfFile: "/proc/self/comm", encoding: .utf8))?
    .trimmingCharacters(in: .newlines) ?? "probe-test-help"

func unnameCurrentThread() {
    if poolUnnamed { try? processName.write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8) }
}

func unnamePool() {
    guard poolUnnamed else { return }
    let width = ProcessInfo.processInfo.activeProcessorCount
    let arrived = BlockedThreads()
    let done = DispatchSemaphore(value: 0)
    for _ in 0..<width {
        Task.detached {
            unnameCurrentThread()
            arrived.ids.withLock { $0.append(StackSampler.currentThreadID) }
            let deadline = DispatchTime.now().uptimeNanoseconds + 100_000_000
            while arrived.ids.withLock({ $0.count }) < width && DispatchTime.now().uptimeNanoseconds < deadline {
                usleep(1000)
            }
            done.signal()
        }
    }
    for _ in 0..<width { done.wait() }
    Thread {
        while true {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            for tid in tasks {
                let path = "/proc/self/task/\(tid)/comm"
                if let name = try? String(contentsOfFile: path, encoding: .utf8), name.hasSuffix("-qos\n") {
                    try? processName.write(toFile: path, atomically: false, encoding: .utf8)
                }
            }
            usleep(1000)
        }
    }.start()
}

/// Every pool thread blocked for `milliseconds` (the watchdog's threshold is 100 ms).
func starvePool(stallsPath: String, milliseconds: Int = 600) {
    unnamePool()
    let watchdog = startPoolWatchdog(stallsPath: stallsPath)
    Thread.sleep(forTimeInterval: 0.3)  // pings go through while the pool is free
    let width = ProcessInfo.processInfo.activeProcessorCount
    let release = DispatchSemaphore(value: 0)
    let started = DispatchSemaphore(value: 0)
    let blocked = BlockedThreads()
    for _ in 0..<width {
        Task.detached {
            unnameCurrentThread()
            blocked.ids.withLock { $0.append(StackSampler.currentThreadID) }
            started.signal()
            waitInsideTaskInHelper(release)
        }
    }
    for _ in 0..<width {
        guard started.wait(timeout: .now() + 10) == .success else {
            print("error: the blocking tasks did not all start")
            exit(1)
        }
    }
    Thread.sleep(forTimeInterval: Double(milliseconds) / 1000)
    for _ in 0..<width { release.signal() }
    Thread.sleep(forTimeInterval: 0.3)  // the pool starts pings again: the end of the stall is seen
    watchdog.stop()
    print("blocked=\(blocked.ids.withLock { $0 }.map(String.init).joined(separator: ","))")
    print("pausesIgnored=\(watchdog.statistics.pausesIgnored)")
}

/// What the helper's profile server serves.
/// A ProfileServer (the real profiler) in a process whose every cooperative-pool thread is blocked:
/// the test asks it for a wall profile and a thread dump from outside, then closes stdin to end it.
func serveStarved() {
    let server = ProfileServer(configuration: .init())
    orExit { try server.start() }
    let width = ProcessInfo.processInfo.activeProcessorCount
    let release = DispatchSemaphore(value: 0)
    let started = DispatchSemaphore(value: 0)
    for _ in 0..<width {
        Task.detached {
            started.signal()
            waitInsideTaskInHelper(release)
        }
    }
    var blocked = 0
    while blocked < width && started.wait(timeout: .now() + 10) == .success { blocked += 1 }
    // Unbuffered: the test reads these while the helper runs.
    FileHandle.standardOutput.write(Data("blocked=\(blocked)\nport=\(server.port ?? 0)\n".utf8))
    _ = FileHandle.standardInput.readDataToEndOfFile()
    for _ in 0..<width { release.signal() }
    server.stop()
}

func idlePool(stallsPath: String) {
    let watchdog = startPoolWatchdog(stallsPath: stallsPath)
    for _ in 0..<30 {
        Task.detached { spinInHelper(milliseconds: 1) }  // light work, as a quiet service has
        Thread.sleep(forTimeInterval: 0.05)
    }
    watchdog.stop()
    print("stalls=\(watchdog.statistics.stalls)")
}

/// A plain request handler's mistake: a synchronous sleep inside a task.
@inline(never)
func sleepInsideTaskInHelper(milliseconds: Int) {
    let end = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
    while DispatchTime.now().uptimeNanoseconds < end { usleep(10_000) }
}

/// Runs `body` in one detached task and waits for it on this (non-pool) thread.
func runAloneOnThePool(_ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        body()
        done.signal()
    }
    done.wait()
}

/// One long job at a time on an otherwise free pool: a sleeping one, then a spinning one. Each
/// must be one stall of its own thread, named by its function.
func longJobs(stallsPath: String) {
    let watchdog = startPoolWatchdog(stallsPath: stallsPath)
    Thread.sleep(forTimeInterval: 0.3)  // the queues are learned
    print("limitations=\(watchdog.limitations.joined(separator: "; "))")
    runAloneOnThePool { sleepInsideTaskInHelper(milliseconds: 500) }
    Thread.sleep(forTimeInterval: 0.2)
    runAloneOnThePool { spinInHelper(milliseconds: 500) }
    Thread.sleep(forTimeInterval: 0.2)
    watchdog.stop()
    print("stalls=\(watchdog.statistics.stalls)")
}

/// Keeps the calling thread on CPU 0 only, or on every CPU again (`taskset -p` on its thread id:
/// glibc's affinity calls are not imported into Swift).
func pinCurrentThread(toCPU0 pin: Bool) {
    let taskset = Process()
    taskset.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
    taskset.arguments = [
        "-p", "-c", pin ? "0" : "0-\(ProcessInfo.processInfo.processorCount - 1)", "\(StackSampler.currentThreadID)",
    ]
    taskset.standardOutput = FileHandle.nullDevice
    try? taskset.run()
    taskset.waitUntilExit()
}

/// A busy job on CPU 0, which the test keeps busy with another process: the job's thread is
/// runnable but gets part of that CPU. The rest of the process (the watchdog, the pool's other
/// threads) runs anywhere, so the pool is not starved.
func spinBesideAnotherProcess(stallsPath: String) {
    let watchdog = startPoolWatchdog(stallsPath: stallsPath)
    Thread.sleep(forTimeInterval: 0.3)
    runAloneOnThePool {
        pinCurrentThread(toCPU0: true)
        spinInHelper(milliseconds: 500)
        pinCurrentThread(toCPU0: false)
    }
    Thread.sleep(forTimeInterval: 0.2)
    watchdog.stop()
    print("stalls=\(watchdog.statistics.stalls)")
}

/// Another library holds the global executor's hook: the pool watchdog says it cannot time jobs,
/// and a long job alone on the pool goes unreported (only starvation is watched).
func hookTaken(stallsPath: String) {
    cprobe_pool_jobs_test_take_hook(1)
    let watchdog = startPoolWatchdog(stallsPath: stallsPath)
    print("limitations=\(watchdog.limitations.joined(separator: "; "))")
    runAloneOnThePool { sleepInsideTaskInHelper(milliseconds: 300) }
    Thread.sleep(forTimeInterval: 0.2)
    watchdog.stop()
    cprobe_pool_jobs_test_take_hook(0)
    print("stalls=\(watchdog.statistics.stalls)")
}

/// A job longer than the profile window (25 samples, 0.5 s): `seconds` of spinning alone on the pool.
func longSpin(stallsPath: String, seconds: Int) {
    let watchdog = startPoolWatchdog(stallsPath: stallsPath, maxSamplesPerStall: 25)
    Thread.sleep(forTimeInterval: 0.3)
    runAloneOnThePool { spinInHelper(milliseconds: seconds * 1000) }
    Thread.sleep(forTimeInterval: 0.2)
    watchdog.stop()
    print("stalls=\(watchdog.statistics.stalls)")
}

/// A starvation that ends while the watchdog is being stopped: recorded as ended.
func starveThenStop(stallsPath: String) {
    let watchdog = startPoolWatchdog(stallsPath: stallsPath)
    Thread.sleep(forTimeInterval: 0.3)
    let width = ProcessInfo.processInfo.activeProcessorCount
    for _ in 0..<width { Task.detached { sleepInsideTaskInHelper(milliseconds: 400) } }
    Thread.sleep(forTimeInterval: 0.45)  // the tasks end now: the pool's ping runs about here
    watchdog.stop()
    print("stalls=\(watchdog.statistics.stalls)")
}

/// `memory BREADCRUMB JSONL ACTION`: a memory watch with a breadcrumb that prints how the previous
/// instance ended (one JSON line, or "null"), then "ready", then: `clean` stops the watch and exits;
/// `hog` allocates and touches 2 MiB every 25 ms (PROBE_TEST_HOG_PAUSE_MS) until the OOM killer ends
/// it — with PROBE_TEST_HOG_AWAITS_PROFILE=1 it first waits, once a near-limit warning names its heap
/// profile, until that file is there (emulated, building it outlasts the hog's way to the limit);
/// `segfault` writes through a null pointer; `wait` sleeps until killed.
func memory(breadcrumb: String, jsonLines: String, action: String) {
    Startup.mark("memory-helper-started")
    var configuration = MemoryWatchConfiguration(name: "helper", breadcrumbPath: breadcrumb)
    configuration.jsonLinesPath = jsonLines
    configuration.checkInterval = .milliseconds(20)
    // With PROBE_TEST_HEAP_DIR: a heap profiler runs, and warnings write its profile there.
    if let directory = ProcessInfo.processInfo.environment["PROBE_TEST_HEAP_DIR"] {
        configuration.heapProfileDirectory = directory
        orExit { try HeapProfiler.start() }
    }
    let watch = MemoryWatch(configuration: configuration)
    orExit { try watch.start() }
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    let previous = watch.previousExit.flatMap { try? encoder.encode($0) }.map { String(decoding: $0, as: UTF8.self) }
    print(previous ?? "null")
    for limitation in watch.limitations { print("limitation: \(limitation)") }
    print("ready")
    fflush(nil)
    switch action {
    case "clean":
        watch.stop()
    case "hog":
        Startup.mark("allocating")
        let environment = ProcessInfo.processInfo.environment
        let awaitsProfile = environment["PROBE_TEST_HOG_AWAITS_PROFILE"] == "1"
        var profileWritten = false
        hogMemoryInHelper(
            pauseMicroseconds: 1000 * (environment["PROBE_TEST_HOG_PAUSE_MS"].flatMap { UInt32($0) } ?? 25),
            beforeNext: {
                guard awaitsProfile, !profileWritten, let path = nearLimitHeapProfile(in: jsonLines) else { return }
                // A minute at most: the test then finds no profile and says so.
                for _ in 0..<600 where !FileManager.default.fileExists(atPath: path) { usleep(100_000) }
                profileWritten = true
            })
    case "segfault":
        Thread.sleep(forTimeInterval: 0.1)  // a check or two written
        // An address no mapping covers (the first page is never mapped): a real SIGSEGV, not a Swift trap.
        let unmapped = UnsafeMutablePointer<Int>(bitPattern: 8)!
        unmapped.pointee = 42
    default:
        while true { sleep(60) }
    }
}

/// 2 MiB more every pause, touched, never freed: until the OOM killer ends the process.
@inline(never) func hogMemoryInHelper(pauseMicroseconds: UInt32, beforeNext: () -> Void) -> Never {
    var blocks: [UnsafeMutableRawPointer] = []
    while true {
        let size = 2 << 20
        guard let block = malloc(size) else { continue }
        memset(block, 1, size)
        blocks.append(block)
        usleep(pauseMicroseconds)
        beforeNext()
    }
}

/// The heap profile the first near-limit warning in `jsonLines` names, if one does yet.
func nearLimitHeapProfile(in jsonLines: String) -> String? {
    guard let text = try? String(contentsOfFile: jsonLines, encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") {
        guard let record = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            record["type"] as? String == "memory-warning", record["reason"] as? String == "near-limit"
        else { continue }
        return record["heapProfile"] as? String
    }
    return nil
}

/// The async chain of the cross-check: repository ← service ← handler, each with work after its await.
struct CrossCheckRepository {
    @inline(never) func loadStockLevels(_ order: Int) async -> Int {
        try? await Task.sleep(for: .milliseconds(1))
        return unwindThenCrash(order) &+ 1
    }
}

struct CrossCheckService {
    @inline(never) func priceOrder(_ order: Int) async -> Int {
        let stock = await CrossCheckRepository().loadStockLevels(order)
        return stock &* 3
    }
}

@inline(never) func handleCrossCheckRequest(_ order: Int) async -> Int {
    let price = await CrossCheckService().priceOrder(order)
    return price &+ 7
}

@inline(never) func unwindThenCrash(_ order: Int) -> Int {
    Watchdog.finishStartUpWork()
    cprobe_prime_unwinder()
    cprobe_attach_thread()
    var pcs = [UInt](repeating: 0, count: Int(CPROBE_MAX_FRAMES))
    let depth = Int(cprobe_unwind_self_with(Int32(CPROBE_UNWIND_FRAME_POINTERS), &pcs, CPROBE_MAX_FRAMES))
    for frame in Symbolicator.shared.symbolicate(stack: Array(pcs.prefix(depth))) where frame.async == true {
        print("probe-async 0x\(String(frame.address, radix: 16)) \(frame.functionName)")
    }
    fflush(nil)
    if order > 0 { fatalError("async-crash: the cross-check's crash") }
    return depth
}

func asyncCrash() {
    Task.detached { _ = await handleCrossCheckRequest(1) }
    while true { sleep(60) }
}

/// 64 KiB an instance, in the object itself: 1,024 of them hold 64 MiB.
final class HeldRecord {
    var payload = InlineArray<8192, UInt64>(repeating: 0)
    var seed: UInt64
    init(seed: UInt64) { self.seed = seed }
}

@inline(never) func storeHeldRecords(into store: inout [HeldRecord]) {
    for index in 0..<1024 { store.append(HeldRecord(seed: UInt64(index))) }
}

@inline(never) func churnShortArrays(bytes: Int) -> UInt64 {
    var sum: UInt64 = 0
    var allocated = 0
    while allocated < bytes {
        let array = [UInt64](repeating: UInt64(allocated), count: 4096)  // 32 KiB, freed at once
        sum &+= array[allocated % 4096]
        allocated += 32 * 1024
    }
    return sum
}

func heapHold() {
    // One sample per 64 KiB on average: ~650 of the 1,024 records are sampled, so the estimated total
    // is within ±2.4% (one σ); at the default 512 KiB, ~120 were, ±8.6%, and ±20% failed 1 run in ~50.
    orExit { try HeapProfiler.start(meanInterval: 64 * 1024) }
    var held: [HeldRecord] = []
    storeHeldRecords(into: &held)
    let sum = churnShortArrays(bytes: 1 << 30)
    let server = ProfileServer(configuration: .init())
    orExit { try server.start() }
    FileHandle.standardOutput.write(Data("port=\(server.port ?? 0)\nsum=\(sum & 1)\n".utf8))
    _ = FileHandle.standardInput.readDataToEndOfFile()
    server.stop()
    withExtendedLifetime(held) {}
}

/// fork + exec while every allocation is sampled: a child that allocates between fork and exec
/// (posix_spawn's fallback, or Foundation's Process) must not wait on a sampler's state.
func heapFork(count: Int) {
    orExit { try HeapProfiler.start(meanInterval: 1) }
    let stop = Atomic<Bool>(false)
    let allocators = (0..<2).map { _ in
        Thread {
            while !stop.load(ordering: .relaxed) { _ = churnShortArrays(bytes: 1 << 20) }
        }
    }
    allocators.forEach { $0.start() }
    var forks = 0
    let argv: [UnsafeMutablePointer<CChar>?] = [strdup("true"), nil]
    for _ in 0..<count {
        let pid = fork()
        if pid == 0 {
            // The child allocates before exec: a sample here runs in a copy of a process whose
            // other threads may have been inside the sampler.
            let bytes = malloc(4096)
            free(bytes)
            execv("/bin/true", argv)
            _exit(127)
        }
        var status: Int32 = 0
        if pid > 0 && waitpid(pid, &status, 0) == pid && status == 0 { forks += 1 }
    }
    stop.store(true, ordering: .relaxed)
    HeapProfiler.stop()
    print("forks=\(forks)")
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch (arguments.first, arguments.count) {
case ("pause-target", _): pauseTarget()
case ("startup", _): startup()
case ("starve-pool", 2): starvePool(stallsPath: arguments[1])
case ("starve-pool", 3): starvePool(stallsPath: arguments[1], milliseconds: Int(arguments[2]) ?? 600)
case ("idle-pool", 2): idlePool(stallsPath: arguments[1])
case ("long-jobs", 2): longJobs(stallsPath: arguments[1])
case ("spin-beside-another-process", 2): spinBesideAnotherProcess(stallsPath: arguments[1])
case ("hook-taken", 2): hookTaken(stallsPath: arguments[1])
case ("long-spin", 3): longSpin(stallsPath: arguments[1], seconds: Int(arguments[2]) ?? 1)
case ("starve-then-stop", 2): starveThenStop(stallsPath: arguments[1])
case ("memory", 4): memory(breadcrumb: arguments[1], jsonLines: arguments[2], action: arguments[3])
case ("serve-starved", 1): serveStarved()
case ("async-crash", 1): asyncCrash()
case ("heap-hold", 1): heapHold()
case ("heap-fork", 2): heapFork(count: Int(arguments[1]) ?? 100)
case ("stall-writer", 2): faultStallWriter(jsonLines: arguments[1])
case ("fork-exec", 2): faultForkExec(count: Int(arguments[1]) ?? 50)
case ("thread-churn", 2): faultThreadChurn(seconds: Int(arguments[1]) ?? 10)
case ("signal-taken", 1): faultSignalTaken()
case ("malloc-threshold", 1): faultMallocThreshold()
default:
    FileHandle.standardError.write(
        Data(
            "usage: probe-test-helper pause-target|startup|starve-pool FILE [MS]|idle-pool FILE|long-jobs FILE|spin-beside-another-process FILE|hook-taken FILE|long-spin FILE SECONDS|starve-then-stop FILE|memory BREADCRUMB JSONL clean|hog|segfault|wait|serve-starved|async-crash|heap-hold|heap-fork N|stall-writer JSONL|fork-exec N|thread-churn SECONDS|signal-taken\n"
                .utf8))
    exit(1)
}
