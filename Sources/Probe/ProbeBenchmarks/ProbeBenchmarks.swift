import CProbe
import CProbeBenchmarks
import CProbeHeap
import Dispatch
import Foundation
import Harness
import Metrics
@_spi(Benchmarks) import Probe
import Synchronization

/// What the watchdog costs: one stack sample at several depths (frame records and libunwind side
/// by side), the unwind alone, the cost of sampling a stalled thread every millisecond, one ping,
/// symbolication cold and cached, a startup mark, and a busy loop with and without a watchdog.
public let probeSuite = BenchmarkSuite(
    name: "Probe",
    benchmarks: [
        // Each reports, besides the round trip (its time), what a sample takes from the sampled
        // thread: counter `sampledThreadMicrosecondsPerSample` (signal delivery, handler, return).
        Benchmark(
            "Probe/sample/stack-depth", parameters: [8, 32, 96],
            instantiate: { depth in try SampledThread(depth: depth ?? 8, method: .framePointers) }),
        Benchmark(
            "Probe/sample/stack-depth-libunwind", parameters: [8, 32, 96],
            instantiate: { depth in try SampledThread(depth: depth ?? 8, method: .libunwind) }),
        // The same depths of synchronous frames below a task three awaits deep, on a pool thread: the
        // sample follows the task's async chain (four logical callers and the task's root), or not.
        Benchmark(
            "Probe/sample/stack-depth-async", parameters: [8, 32, 96],
            instantiate: { depth in try SampledThread(depth: depth ?? 8, method: .framePointers, inTask: true) }),
        Benchmark(
            "Probe/sample/stack-depth-async-unfollowed", parameters: [8, 32, 96],
            instantiate: { depth in
                try SampledThread(depth: depth ?? 8, method: .framePointers, inTask: true, followAsync: false)
            }),
        // The floor under both: the signal's round trip with a handler that unwinds nothing.
        Benchmark(
            "Probe/sample/signal-round-trip",
            instantiate: { _ in try SampledThread(depth: 8, method: .interruptedInstructionOnly) }),
        // The walk the signal handler does, timed on the benchmark's own thread from a context
        // captured in place: what one sample costs the interrupted thread besides the signal.
        Benchmark(
            "Probe/unwind/frame-pointers", parameters: [8, 32, 96],
            setup: { depth in UnwindDepth(depth: depth ?? 8) },
            body: { target, iterations in target.unwind(iterations, method: .framePointers) }),
        // libunwind's cost per frame grows with the binary's unwind tables (a binary search over
        // them): +2.8% at 96 frames when perfkit gained the time profiler (2026-11-27), so gated at
        // 5%, not the instruction gate's 2%: perfkit's own size is not the unwinder's regression.
        Benchmark(
            "Probe/unwind/libunwind", parameters: [8, 32, 96], thresholdPercent: 5,
            setup: { depth in UnwindDepth(depth: depth ?? 8) },
            body: { target, iterations in target.unwind(iterations, method: .libunwind) }),
        // A stalled thread's fixed work, sampled every millisecond from another thread (as a
        // watchdog does during a stall) or not at all: the difference is the sampling's cost to
        // the stalled thread, signal delivery included.
        Benchmark(
            "Probe/sample/stalled-work-unsampled",
            setup: { _ in try StalledWork(sampleEvery: nil) },
            body: { work, iterations in work.run(iterations) },
            teardown: { $0.stop() }),
        Benchmark(
            "Probe/sample/stalled-work-sampled-1ms",
            setup: { _ in try StalledWork(sampleEvery: .milliseconds(1)) },
            body: { work, iterations in work.run(iterations) },
            teardown: { $0.stop() }),
        Benchmark(
            "Probe/ping/serial-queue",
            setup: { _ in PingTarget() },
            body: { target, iterations in target.ping(iterations) }),
        // Cold symbolication reads this process's memory map, one stack mapping per live thread: after
        // Dispatch benchmarks (workers come and go) its counts moved by up to 3.7% between runs of one
        // binary, so it is gated at 10%, not the instruction gate's 2% (docs/regression-gate.md, "What it took").
        Benchmark(
            "Probe/symbolicate/cold", thresholdPercent: 10,
            setup: { _ in captureStack(depth: 20) },
            body: { stack, iterations in
                let symbolicator = Symbolicator()
                for _ in 0..<iterations {
                    symbolicator.clearCache()
                    blackHole(symbolicator.symbolicate(stack: stack).count)
                }
            }),
        Benchmark(
            "Probe/symbolicate/cached",
            setup: { _ in
                let stack = captureStack(depth: 20)
                let symbolicator = Symbolicator()
                _ = symbolicator.symbolicate(stack: stack)
                return (stack, symbolicator)
            },
            body: { state, iterations in
                for _ in 0..<iterations { blackHole(state.1.symbolicate(stack: state.0).count) }
            }),
        // What timing the cooperative pool's jobs adds to each job: the trampoline's stamps (a
        // thread-local look-up, a clock read and an atomic store before the job, a clock read and
        // three stores after) around an empty job, against the same call without them. The job
        // itself reaches its queue the runtime's way (the same `dispatch_async_f`), so this is
        // all a watched pool pays per job.
        Benchmark("Probe/pool/job-unstamped") { iterations in
            for _ in 0..<iterations { emptyPoolJob(nil) }
        },
        Benchmark("Probe/pool/job-stamped") { iterations in
            for _ in 0..<iterations { cprobe_pool_jobs_run_stamped(emptyPoolJob, nil) }
        },
        // What recording a ping's lag costs the watchdog's thread (never the target's) besides the
        // backend: the window of the max-lag gauge and swift-metrics' calls, into a backend that
        // keeps nothing. A real backend adds its own (swift-prometheus: see docs/probe-in-a-server.md).
        Benchmark("Probe/lag/record") { iterations in
            let lag = LoopLag(watchdog: "benchmark", factory: NOOPMetricsHandler.instance)
            var now: UInt64 = 1_000_000_000
            for index in 0..<iterations {
                now &+= 25_000_000
                lag.record(UInt64(truncatingIfNeeded: index & 0xFFFF) &* 1_000, now: now)
            }
        },
        // What one look costs the watchdog's thread during a stall of a heartbeat (timed and
        // sampled, the reader taking nothing), and the resting clock's thread at an idle one.
        Benchmark(
            "Probe/watchdog/look-stalled", setup: { _ in WatchdogLooks(busy: true) },
            body: { looks, iterations in looks.run(iterations) }),
        Benchmark(
            "Probe/watchdog/look-resting", setup: { _ in WatchdogLooks(busy: false) },
            body: { looks, iterations in looks.run(iterations) }),
        // What each real look adds to the two above: the looking thread's wait for a CPU, one pread
        // of /proc/thread-self/schedstat, which tells a busy machine from a paused process.
        Benchmark("Probe/watchdog/run-queue-wait") { iterations in
            var total: Int64 = 0
            for _ in 0..<iterations { total &+= cprobe_thread_run_queue_wait_ns() }
            blackHole(total)
        },
        // What a look that finds a heartbeat or pinged target idle adds to `look-resting`: its
        // thread's CPU time (clock_gettime on that thread's CPU clock), from which a later late look
        // bounds what it excuses (the target's time off its CPU).
        Benchmark("Probe/watchdog/thread-cpu-time") { iterations in
            let thread = cprobe_gettid()
            var total: Int64 = 0
            for _ in 0..<iterations { total &+= cprobe_thread_cpu_ns(thread) }
            blackHole(total)
        },
        // What the memory watch's thread pays per check to keep the breadcrumb (the figures, the
        // latest phase's name, a sequence around them: stores into a shared mapping of the file).
        // Target ≤ 1 µs, no allocation (`perfkit run --allocations` says 0 per operation; tested).
        Benchmark(
            "Probe/memory/breadcrumb-update",
            setup: { _ in try BreadcrumbUpdate() },
            body: { target, iterations in target.update(iterations) },
            teardown: { $0.close() }),
        // One check of the memory watch's thread on this process's real cgroup: read usage, limit,
        // events, RSS and PSI averages, then keep them and decide warnings (no breadcrumb).
        Benchmark(
            "Probe/memory/check",
            setup: { _ in MemoryChecks() },
            body: { checks, iterations in checks.check(iterations) },
            teardown: { $0.close() }),
        // The heap sampler's allocation path (ProbeHeap's malloc and free, called directly: perfkit
        // keeps glibc's malloc for `--allocations`), 64 bytes allocated and freed per operation:
        // with no profiler running, at Go's 512 KiB (a sample every 8,192 operations on average, its
        // places fixed by a seed), and every allocation sampled (a sample's whole cost: the stack,
        // its site, its address tracked and untracked).
        Benchmark(
            "Probe/heap/malloc-free-off", setup: { _ in HeapSampling(meanInterval: 0) },
            body: { heap, iterations in heap.run(iterations) }, teardown: { $0.stop() }),
        Benchmark(
            "Probe/heap/malloc-free-512k", setup: { _ in HeapSampling(meanInterval: 512 * 1024) },
            body: { heap, iterations in heap.run(iterations) }, teardown: { $0.stop() }),
        Benchmark(
            "Probe/heap/sample", setup: { _ in HeapSampling(meanInterval: 1) },
            body: { heap, iterations in heap.run(iterations) }, teardown: { $0.stop() }),
        Benchmark("Probe/startup/mark-x64") { iterations in
            for _ in 0..<iterations {
                Startup.resetForBenchmarks()
                for _ in 0..<64 { Startup.mark("benchmark") }
            }
        },
        // One sample of a cpu profile as the sampled thread pays for it: the CPU timer's signal
        // (SI_TIMER, sent to itself), the handler's unwind into the ring, and the drain.
        Benchmark(
            "Probe/profile/cpu-timer-sample", setup: { _ in try CPUTimerSamples() },
            body: { samples, iterations in samples.sample(iterations) }),
        // One tick of a wall profile over N threads blocked in `read`: each read from `/proc` (its
        // syscall line), its stack unwound once and kept while it stays in the same wait.
        Benchmark(
            "Probe/profile/tick-wall", parameters: [1, 16],
            setup: { threads in try ProfileTickTarget(sleepers: threads ?? 1) },
            body: { target, iterations in target.run(iterations) },
            teardown: { $0.stop() }),
        Benchmark(
            "Probe/overhead/busy-loop-unwatched",
            setup: { _ in BusyLoop(watched: false) },
            body: { loop, iterations in loop.run(iterations) },
            teardown: { $0.stop() }),
        // The thread dump's task listing: this process's writable memory scanned for tasks, with a
        // thousand requests parked on continuations (as a hung dependency leaves them).
        Benchmark(
            "Probe/tasks/list-1000-parked",
            setup: { _ in ParkedRequests(count: 1000) },
            body: { parked, iterations in
                for _ in 0..<iterations { precondition(listSwiftTasksForBenchmarks() >= parked.count) }
            },
            teardown: { $0.release() }),
        Benchmark(
            "Probe/overhead/busy-loop-watched",
            setup: { _ in BusyLoop(watched: true) },
            body: { loop, iterations in loop.run(iterations) },
            teardown: { $0.stop() }),
    ]
)

/// Threads that sleep in `read` on a pipe until `stop` writes to it, sampled by a wall profile's ticks.
/// ProbeHeap's allocation functions on the benchmark's thread, its sampler started at
/// `meanInterval` (0: not started) with this thread's countdown seeded, so instruction counts repeat.
final class HeapSampling {
    let started: Bool

    init(meanInterval: UInt64) {
        Watchdog.finishStartUpWork()  // frame-pointer code published: samples walk frame records
        started = meanInterval > 0
        if started { cprobe_heap_start(meanInterval) }
        cprobe_heap_seed_thread(0x5EED)
    }

    @inline(never) func run(_ iterations: Int) {
        for _ in 0..<iterations { cprobe_heap_free(cprobe_heap_malloc(64)) }
    }

    func stop() { if started { cprobe_heap_stop() } }
}

final class ProfileTickTarget {
    private let ticks: ProfileTicks
    private let finished = DispatchSemaphore(value: 0)
    private let sleepers: Int
    private var pipe: [Int32] = [-1, -1]

    init(sleepers: Int) throws {
        ticks = try ProfileTicks()
        self.sleepers = sleepers
        guard Glibc.pipe(&pipe) == 0 else { throw POSIXError(.EMFILE) }
        let readEnd = pipe[0]
        let started = DispatchSemaphore(value: 0)
        for _ in 0..<sleepers {
            Thread { [finished] in
                started.signal()
                var byte: UInt8 = 0
                _ = Glibc.read(readEnd, &byte, 1)
                finished.signal()
            }.start()
        }
        for _ in 0..<sleepers { started.wait() }
        usleep(10_000)  // into their reads
        ticks.tick()  // each wait unwound once, as a profile's first tick does
    }

    func run(_ iterations: Int) {
        for _ in 0..<iterations { ticks.tick() }
    }

    func stop() {
        var bytes = [UInt8](repeating: 0, count: sleepers)
        _ = Glibc.write(pipe[1], &bytes, bytes.count)
        for _ in 0..<sleepers { finished.wait() }
        for fd in pipe where fd >= 0 { close(fd) }
    }
}

/// A breadcrumb in a file of its own, updated with figures as a check finds them.
final class BreadcrumbUpdate {
    let directory: String
    let breadcrumb: Breadcrumb
    let memory = MemorySnapshot(
        cgroupVersion: "v1", cgroupDirectory: "/sys/fs/cgroup/memory/service", usageBytes: 200 << 20,
        limitBytes: 256 << 20, rssAnonBytes: 180 << 20, rssFileBytes: 12 << 20, pressureFile: "/proc/pressure/memory")
    let phase: StaticString = "serving"

    init() throws {
        directory = NSTemporaryDirectory() + "perfkit-breadcrumb-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        breadcrumb = try Breadcrumb.open(path: directory + "/breadcrumb")
    }

    func update(_ iterations: Int) {
        let name = UnsafeRawPointer(phase.utf8Start).assumingMemoryBound(to: CChar.self)
        for index in 0..<iterations {
            breadcrumb.update(memory, oomKills: UInt64(index & 1), someAvg10: 0.5, phase: name)
        }
    }

    func close() {
        breadcrumb.close(clean: true)
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// The job of the pool benchmarks: nothing, behind a C function pointer as a job's body is.
private let emptyPoolJob: @convention(c) (UnsafeMutableRawPointer?) -> Void = { blackHole($0) }

@inline(never)
func captureStack(depth: Int) -> [UInt] {
    if depth > 1 {
        let stack = captureStack(depth: depth - 1)
        blackHole(depth)  // work after the call: no tail call, so every level stays a frame
        return stack
    }
    return Probe.captureCurrentStack()
}

/// A thread spinning `depth` frames deep, sampled from the benchmark's thread with `method`. The
/// spinning loop adds up the time taken from it, which is what each sample costs the sampled
/// thread (the round trip's other part is the sender's).
final class SampledThread: BenchmarkInstance, @unchecked Sendable {  // set before sampling starts
    let sampler: StackSampler
    let method: StackSampler.UnwindMethod
    private(set) var threadID: Int32 = 0
    private let state: SpinState

    final class SpinState: @unchecked Sendable {  // the spinner is thread-safe C
        let spinner: OpaquePointer
        let tid = Atomic<Int32>(0)
        let finished = DispatchSemaphore(value: 0)

        init() throws {
            guard let spinner = cprobe_lost_time_spinner_create() else { throw POSIXError(.ENOMEM) }
            self.spinner = spinner
        }

        deinit { cprobe_lost_time_spinner_destroy(spinner) }
    }

    /// `inTask`: the spinning thread is a pool thread running a task three awaits deep;
    /// `followAsync`: whether samples follow its async chain (process-wide, restored at tear-down).
    init(depth: Int, method: StackSampler.UnwindMethod, inTask: Bool = false, followAsync: Bool = true) throws {
        sampler = try StackSampler()
        self.method = method
        let state = try SpinState()
        self.state = state
        let signal = sampler.signal
        Watchdog.finishStartUpWork()  // the async function table, before the first sample
        Watchdog.followAsyncChains(followAsync)
        if inTask {
            Task.detached {
                _ = Heartbeat.currentThread(signal: signal)
                await SampledRoute().handle(depth: depth, state: state)
                state.finished.signal()
            }
        } else {
            Thread {
                _ = Heartbeat.currentThread(signal: signal)  // primes libunwind and unblocks the signal
                spin(depth: depth, state: state)
                state.finished.signal()
            }.start()
        }
        while state.tid.load(ordering: .acquiring) == 0 { usleep(100) }
        threadID = state.tid.load(ordering: .acquiring)
    }

    func run(iterations: Int) {
        for _ in 0..<iterations { record(sampler.sample(threadID: threadID, method: method)?.count) }
    }

    /// The median gap of the spinner, each one an interruption: samples come back to back,
    /// about 90 per millisecond, so the 250 Hz tick is one interruption in several hundred, and a
    /// median does not move with the odd preemption.
    var counters: [String: Double] {
        guard answered > 0, cprobe_lost_time_spinner_gaps(state.spinner) > 0 else { return [:] }
        return ["sampledThreadMicrosecondsPerSample": cprobe_lost_time_spinner_median_gap_ns(state.spinner) / 1000]
    }

    func tearDown() {
        cprobe_lost_time_spinner_stop(state.spinner)
        state.finished.wait()
        Watchdog.followAsyncChains(true)
        if ProcessInfo.processInfo.environment["PROBE_BENCHMARK_VERBOSE"] != nil {
            print("sampled depth \(deepest), unanswered \(unanswered)")
        }
    }

    private(set) var deepest = 0
    private(set) var unanswered = 0
    private(set) var answered = 0

    @inline(__always)
    private func record(_ depth: Int?) {
        if let depth {
            deepest = max(deepest, depth)
            answered += 1
        } else {
            unanswered += 1
        }
    }
}

@inline(never)
private func spin(depth: Int, state: SampledThread.SpinState) {
    if depth > 1 {
        spin(depth: depth - 1, state: state)
        blackHole(depth)  // work after the call: no tail call, so every level stays a frame
        return
    }
    state.tid.store(StackSampler.currentThreadID, ordering: .releasing)
    cprobe_lost_time_spinner_run(state.spinner)
}

/// A route's async callers above the spinning frames: handler → service → repository, each with
/// work after its await (no tail call), as a server's request is.
private struct SampledRoute {
    @inline(never) func handle(depth: Int, state: SampledThread.SpinState) async {
        await SampledService().price(depth: depth, state: state)
        blackHole(1)
    }
}

private struct SampledService {
    @inline(never) func price(depth: Int, state: SampledThread.SpinState) async {
        await SampledRepository().load(depth: depth, state: state)
        blackHole(2)
    }
}

private struct SampledRepository {
    @inline(never) func load(depth: Int, state: SampledThread.SpinState) async {
        spin(depth: depth, state: state)
        blackHole(3)
    }
}

/// Unwinds the benchmark's own thread from `depth` frames down.
final class UnwindDepth {
    let depth: Int
    private let buffer = UnsafeMutablePointer<UInt>.allocate(capacity: Int(CPROBE_MAX_FRAMES))

    init(depth: Int) {
        self.depth = depth
        // Which code keeps frame records, as a watchdog publishes it: without it every frame goes to
        // libunwind, and "frame-pointers" measured libunwind (2026-11-28, docs/probe-in-a-server.md).
        Watchdog.finishStartUpWork()
        cprobe_prime_unwinder()
        cprobe_attach_thread()
    }

    deinit { buffer.deallocate() }

    func unwind(_ iterations: Int, method: StackSampler.UnwindMethod) {
        descend(
            depth, iterations,
            method == .libunwind ? Int32(CPROBE_UNWIND_LIBUNWIND) : Int32(CPROBE_UNWIND_FRAME_POINTERS))
    }

    @inline(never)
    private func descend(_ level: Int, _ iterations: Int, _ method: Int32) {
        if level > 1 {
            descend(level - 1, iterations, method)
            blackHole(level)  // work after the call: no tail call, so every level stays a frame
            return
        }
        // Exactly `depth` frames, all this benchmark's own: the frames below it are the harness's,
        // and a walk into them would count every change to the harness's call depth (one frame: +5%).
        for _ in 0..<iterations {
            blackHole(cprobe_unwind_self_with(method, buffer, Int32(depth)))
        }
    }
}

/// Fixed CPU work on the benchmark's thread, 32 frames deep, optionally sampled at an interval by
/// a sampler thread the way a watchdog samples a stalled thread.
final class StalledWork: @unchecked Sendable {  // the sampler thread only reads `threadID`
    private let sampler: StackSampler?
    private let threadID = StackSampler.currentThreadID
    private let stopRequest = Atomic<Bool>(false)
    private let stopped = DispatchSemaphore(value: 0)

    init(sampleEvery interval: Duration?) throws {
        _ = Heartbeat.currentThread()  // prepares this thread as a watched thread is
        guard let interval else {
            sampler = nil
            return
        }
        sampler = try StackSampler()
        let nanoseconds = UInt32(interval.components.attoseconds / 1_000_000_000)
        Thread { [self] in
            while !stopRequest.load(ordering: .relaxed) {
                _ = sampler?.sample(threadID: threadID)
                usleep(nanoseconds / 1000)
            }
            stopped.signal()
        }.start()
    }

    func run(_ iterations: Int) { descend(32, iterations) }

    @inline(never)
    private func descend(_ level: Int, _ iterations: Int) {
        if level > 1 {
            descend(level - 1, iterations)
            blackHole(level)
            return
        }
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<iterations {
            for _ in 0..<1000 {
                x ^= x << 13
                x ^= x >> 7
                x ^= x << 17
            }
        }
        blackHole(x)
    }

    func stop() {
        guard sampler != nil else { return }
        stopRequest.store(true, ordering: .relaxed)
        stopped.wait()
    }
}

/// Posts watchdog pings to a serial queue and waits for the last one.
final class PingTarget: Sendable {
    let pinger = QueuePinger(
        queue: DispatchQueue(label: "probe-benchmark-ping"), isMain: false, signal: WatchdogConfiguration.defaultSignal)
    private let generation = Mutex<UInt64>(0)

    func ping(_ count: Int) {
        let last = generation.withLock { value -> UInt64 in
            for _ in 0..<count {
                value += 1
                pinger.post(generation: value)
            }
            return value
        }
        while pinger.arrivedGeneration < last {}
    }
}

/// A loop doing fixed work per turn and beating a heartbeat, optionally watched by a watchdog
/// with default settings.
final class BusyLoop {
    let heartbeat = Heartbeat.currentThread()
    let watchdog: Watchdog?

    init(watched: Bool) {
        watchdog = watched ? Watchdog(watching: .heartbeat(heartbeat), configuration: .init(name: "benchmark")) : nil
        try? watchdog?.start()
        if watched { Watchdog.finishStartUpWork() }
    }

    func run(_ turns: Int) {
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<turns {
            heartbeat.beat()
            for _ in 0..<1000 {
                x ^= x << 13
                x ^= x >> 7
                x ^= x << 17
            }
        }
        heartbeat.idle()
        blackHole(x)
    }

    func stop() { watchdog?.stop() }
}

/// Tasks parked on continuations until released.
final class ParkedRequests: Sendable {
    let count: Int
    private let parked = Mutex<[CheckedContinuation<Void, Never>]>([])

    init(count: Int) {
        self.count = count
        for _ in 0..<count {
            Task.detached { [self] in
                await withCheckedContinuation { continuation in parked.withLock { $0.append(continuation) } }
            }
        }
        while parked.withLock({ $0.count }) < count { usleep(1000) }
    }

    func release() {
        for continuation in parked.withLock({ list in
            defer { list = [] }
            return list
        }) { continuation.resume() }
    }
}
