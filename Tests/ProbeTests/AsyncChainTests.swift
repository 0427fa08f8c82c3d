import CProbe
import ELFSymbols
import Foundation
import Testing

@testable @_spi(Benchmarks) import Probe

/// Three async functions deep, then a synchronous spin: the shape of a route → service →
/// repository → slow code stall.
struct ChainedRepository {
    @inline(never) func loadStock(_ thread: SpinningThread, suspendFirst: Bool) async {
        if suspendFirst {
            await Task.yield()
        }
        recurseThenSpin(2, thread)
    }
}

struct ChainedService {
    let repository = ChainedRepository()
    @inline(never) func priceOrder(_ thread: SpinningThread, suspendFirst: Bool) async {
        await repository.loadStock(thread, suspendFirst: suspendFirst)
        blackHoleForProbeTest(1)
    }
}

@inline(never) func handleOrderRequest(_ thread: SpinningThread, suspendFirst: Bool) async {
    await ChainedService().priceOrder(thread, suspendFirst: suspendFirst)
    blackHoleForProbeTest(2)
}

/// Work done inline in an async function: the interrupted frame itself is the async one.
struct InlineSpinningRepository {
    @inline(never) func spinInline(_ thread: SpinningThread) async {
        await Task.yield()
        thread.announce()
        // Most of the time in this function's own instructions (integer operators are inlined even
        // unoptimised), not in the getter: a loaded CI run sampled the getter 40 times out of 40.
        var turns = 0
        while !thread.shouldStop {
            var step = 0
            while step < 10_000 {
                turns = turns &* 6_364_136_223_846_793_005 &+ 1
                step &+= 1
            }
        }
        blackHoleForProbeTest(turns)
    }
}

@inline(never) func handleInlineSpin(_ thread: SpinningThread) async {
    await InlineSpinningRepository().spinInline(thread)
    blackHoleForProbeTest(3)
}

@Suite(.serialized)
struct AsyncChainTests {
    func sampledStack(suspendFirst: Bool, method: StackSampler.UnwindMethod) throws -> [UInt] {
        FramePointerCode.publish()
        let thread = SpinningThread(task: { thread in
            await handleOrderRequest(thread, suspendFirst: suspendFirst)
        })
        defer { thread.finish() }
        let sampler = try StackSampler()
        // A first libunwind walk of this 100 MB test binary reads its unwind tables: on a loaded
        // machine it outlasted the default 100 ms timeout once (CI, 2026-11-28). Time, not a verdict.
        for _ in 0..<10 {
            if let sample = sampler.takeSample(threadID: thread.threadID, timeout: .seconds(2), method: method) {
                return sample.stack
            }
        }
        Issue.record("no sample answered in 10 tries of 2 s")
        return []
    }

    func sampledNames(suspendFirst: Bool, method: StackSampler.UnwindMethod) throws -> [(String, Bool)] {
        let stack = try sampledStack(suspendFirst: suspendFirst, method: method)
        return Symbolicator.shared.symbolicate(stack: stack).map { ($0.symbol ?? "?", $0.async ?? false) }
    }

    @Test(arguments: [false, true], [StackSampler.UnwindMethod.framePointers, .libunwind])
    func aSampleFollowsTheAsyncCallers(suspendFirst: Bool, method: StackSampler.UnwindMethod) throws {
        let frames = try sampledNames(suspendFirst: suspendFirst, method: method)
        let text = frames.map { "\($0.1 ? "[async] " : "")\($0.0)" }.joined(separator: "\n")
        let wanted = [
            "spinHere", "recurseThenSpin", "ChainedRepository.loadStock", "ChainedService.priceOrder",
            "handleOrderRequest",
        ]
        var position = 0
        for name in wanted {
            guard let found = frames[position...].firstIndex(where: { $0.0.contains(name) }) else {
                Issue.record("\(name) missing after frame \(position):\n\(text)")
                return
            }
            position = found + 1
        }
        // The thread's own frames follow the chain: the executor that runs the job.
        #expect(frames[position...].contains { $0.0.contains("swift_job_run") && !$0.1 }, "\(text)")
    }

    /// The sampled instruction is in the async function itself (no synchronous leaf): its record is
    /// the interrupted frame's, with frame records and with libunwind alike.
    @Test(arguments: [StackSampler.UnwindMethod.framePointers, .libunwind])
    func workInlineInAnAsyncFunctionHasItsCallers(method: StackSampler.UnwindMethod) throws {
        FramePointerCode.publish()
        let thread = SpinningThread(task: { thread in await handleInlineSpin(thread) })
        defer { thread.finish() }
        let sampler = try StackSampler()
        // Samples interrupted in spinInline itself (others land in the getter it calls), and those of
        // them without their async caller.
        var inline = 0
        var cut: [String] = []
        for _ in 0..<40 where inline < 20 {
            guard
                let sample = sampler.takeSample(threadID: thread.threadID, timeout: .milliseconds(500), method: method)
            else { continue }
            let frames = Symbolicator.shared.symbolicate(stack: sample.stack)
            guard frames.first?.symbol?.contains("InlineSpinningRepository.spinInline") == true else { continue }
            inline += 1
            if !frames.contains(where: { $0.async == true && $0.symbol?.contains("handleInlineSpin") == true }) {
                cut.append(
                    frames.map { ($0.async == true ? "[async] " : "") + ($0.symbol ?? "?") }.joined(separator: "\n"))
            }
        }
        #expect(inline > 0, "no sample of 40 landed in spinInline")
        #expect(
            cut.isEmpty, "\(cut.count) of \(inline) samples in spinInline lack its caller, e.g.\n\(cut.first ?? "")")
    }

    /// The same program at the same point, unwound by Probe and by the Swift runtime's backtracer
    /// (`SWIFT_BACKTRACE`, an independent implementation): the same `[async]` frames, by address.
    @Test(
        .disabled(
            if: ThreadInfo.procDescribesAnotherArchitecture,
            "emulated: the runtime's backtracer cannot suspend threads under qemu-user and prints no [async] frame"))
    func theChainEqualsTheSwiftBacktracers() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=yes,interactive=no,color=no,threads=crashed,sanitize=no"
        let run = try ChildProcess.run(
            URL(fileURLWithPath: builtExecutable("probe-test-helper")), ["async-crash"], environment: environment)
        let (printed, crash) = (run.stdout, run.stderr)
        let probe = printed.split(separator: "\n").filter { $0.hasPrefix("probe-async ") }
            .compactMap { UInt64($0.split(separator: " ")[1].dropFirst(2), radix: 16) }
        // `  3 [async]          0x00005582d6292d40 specialized Service.price(_:) in …`
        let backtracer = crash.split(separator: "\n").filter { $0.contains("[async]") }.compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("0x") }.flatMap { UInt64($0.dropFirst(2), radix: 16) }
        }
        #expect(probe.count >= 3, "Probe's async frames:\n\(printed)")
        #expect(probe == backtracer, "Probe:\n\(printed)\nthe Swift backtracer:\n\(crash)")
        #expect(
            printed.contains("CrossCheckService.priceOrder") && printed.contains("handleCrossCheckRequest"),
            "\(printed)")
    }

    /// Contexts that are not contexts end the walk at their first bad link, counted, and are never
    /// read in place outside the memory a context may live in.
    @Test func aBadChainEndsTheWalkAndIsCounted() throws {
        FramePointerCode.publish()
        AsyncChains.refreshContextMemory()
        let resume = try #require(try asyncFunctionAddress())
        var out = [UInt](repeating: 0, count: 16)
        var ended: Int32 = -1
        let before = AsyncChains.counts
        func walk(_ context: UInt) -> Int { Int(cprobe_walk_async_chain(context, &out, 16, &ended)) }
        // Null, misaligned, unmapped (the first page), and a page that cannot be read at all.
        let guardPage = try #require(mmap(nil, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        defer { munmap(guardPage, 4096) }
        for context: UInt in [0, 0x1001, 8, UInt(bitPattern: guardPage)] {
            #expect(walk(context) == 0)
            #expect(ended == Int32(CPROBE_CHAIN_BAD_CONTEXT))
        }
        // Code instead of a context: read (it is readable), its "resume function" is not async code.
        // Outside the published memory a context is read through process_vm_readv; qemu-user has none,
        // so there it cannot be read at all and ends the walk as a bad context.
        let readable = cprobe_read_memory_errno() == 0
        let code = try #require(Symbolicator.readMappings().first { $0.executable && $0.path.hasPrefix("/") })
        #expect(
            walk(UInt(code.start)) == 0
                && ended == Int32(readable ? CPROBE_CHAIN_BAD_RESUME : CPROBE_CHAIN_BAD_CONTEXT))
        // Heap memory holding garbage: a caller pointing anywhere, a resume function that is not async code.
        let garbage = UnsafeMutablePointer<UInt>.allocate(capacity: 4)
        defer { garbage.deallocate() }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            garbage[0] = UInt.random(in: 1...UInt.max, using: &generator)
            garbage[1] = UInt.random(in: 1...UInt.max, using: &generator)
            #expect(walk(UInt(bitPattern: garbage)) == 0 && ended == Int32(CPROBE_CHAIN_BAD_RESUME))
        }
        // A well-formed context whose caller is unmapped: one frame, then the walk stops.
        garbage[0] = 0xdead_beef_0000
        garbage[1] = resume
        #expect(walk(UInt(bitPattern: garbage)) == 1)
        #expect(ended == Int32(CPROBE_CHAIN_BAD_CONTEXT) && out[0] == resume)
        // A cycle: bounded by the room given.
        garbage[0] = UInt(bitPattern: garbage)
        #expect(walk(UInt(bitPattern: garbage)) == 16 && ended == Int32(CPROBE_CHAIN_FULL))
        // Memory mapped after the last refresh (a heap that grew): read through the syscall, the chain
        // goes on to its root, and a refresh is asked for.
        _ = cprobe_context_memory_stale()
        let fresh = try #require(mmap(nil, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        defer { munmap(fresh, 4096) }
        let words = fresh.assumingMemoryBound(to: UInt.self)
        words[0] = 0
        words[1] = resume
        if readable {
            #expect(walk(UInt(bitPattern: fresh)) == 1 && ended == Int32(CPROBE_CHAIN_ROOT) && out[0] == resume)
        } else {
            #expect(walk(UInt(bitPattern: fresh)) == 0 && ended == Int32(CPROBE_CHAIN_BAD_CONTEXT))
        }
        #expect(cprobe_context_memory_stale() == 1)
        // At least these: the counts are the process's, and other tests' samples may add to them.
        let after = AsyncChains.counts
        #expect(after.bad_contexts - before.bad_contexts >= (readable ? 5 : 6))
        #expect(after.bad_resumes - before.bad_resumes >= (readable ? 1001 : 1000))
    }

    /// The memory table is refreshed whenever the heap grew (at most once a second in a service):
    /// a replaced table is freed, not kept for ever.
    @Test func replacedMemoryTablesAreFreed() {
        for _ in 0..<100 { AsyncChains.refreshContextMemory() }
        // Another test's sample may be walking during the last refresh: then that one table waits.
        #expect(cprobe_async_tables_held() <= 1)
    }

    /// Every resume partial function of this binary (named `…TQ0_`, `…TY1_`: how Swift's backtracer
    /// spots async frames) is found by its prologue; a C function is not.
    @Test func everyAsyncFunctionIsFoundByItsPrologue() throws {
        let modules = FramePointerCode.publish()
        let path = try #require(Bundle.main.executablePath)
        let module = try #require(modules.first { $0.path == path })
        let image = try ELFImage(path: path)
        #expect(image.hasFunction(nameEndingWith: ["TQ0_", "TY0_"]))
        let mapping = try #require(Symbolicator.readMappings().first { $0.path == path && $0.executable })
        let slide = mapping.start &- (image.virtualAddress(forFileOffset: mapping.fileOffset) ?? 0)
        let partials = image.functions(withPrefix: "$s").filter { symbol in
            let name = symbol.name.utf8
            guard name.last == UInt8(ascii: "_") else { return false }
            let digits = name.dropLast().reversed().prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            let kind = String(decoding: name.dropLast(1 + digits.count).suffix(2), as: UTF8.self)
            return !digits.isEmpty && (kind == "TQ" || kind == "TY")
        }
        #expect(partials.count > 100)
        let missed = partials.filter { cprobe_in_async_function(UInt(truncatingIfNeeded: $0.address &+ slide)) == 0 }
            .filter { keepsFrameRecord($0, of: image) }
        #expect(missed.isEmpty, "\(missed.count) of \(partials.count), e.g. \(missed.prefix(3).map(\.name))")
        #expect(module.asyncFunctions >= partials.count)
        // A synchronous function is not async code.
        let sync = try #require(image.function(named: "cprobe_gettid"))
        #expect(cprobe_in_async_function(UInt(truncatingIfNeeded: sync.address &+ slide)) == 0)
    }

    /// Whether `function` sets up a frame record. aarch64 code has small resume functions that do
    /// not (swiftlang 6.2.3: 9 of 4,939 in this binary, 28–44 bytes that tail-call on): a walk
    /// never meets a frame of theirs, so they need no slot.
    func keepsFrameRecord(_ function: ELFImage.Symbol, of image: ELFImage) -> Bool {
        #if arch(arm64)
            guard let offset = image.fileOffset(forVirtualAddress: function.address),
                let code = image.bytes(atFileOffset: offset, count: 24)
            else { return true }
            // STP (64-bit) x29, x30, [sp, #imm7 * 8] among the first six instructions
            return (0..<6).contains { index in
                let bytes = code[(4 * index)..<(4 * index + 4)]
                let instruction = bytes.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                return instruction & 0xFFE0_7FFF == 0xA900_7BFD
            }
        #else
            return true
        #endif
    }

    /// The entry of an async function of this binary, from the sampled chain of a running task.
    func asyncFunctionAddress() throws -> UInt? {
        let frames = try sampledStack(suspendFirst: true, method: .framePointers)
        return frames.first { $0 & cprobe_async_frame_tag() != 0 }.map { $0 & ~cprobe_async_frame_tag() }
    }
}
