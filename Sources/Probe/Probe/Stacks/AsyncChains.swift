import CProbe
import ELFSymbols
import Foundation
import Synchronization

/// Swift's logical call chains in sampled stacks: which functions keep an async context below
/// their frame record, and which memory contexts may be read from (`AsyncChains.c` walks them in
/// the signal handler).
///
/// A function keeps the slot when its prologue stores the context register next to its frame
/// record — what LLVM emits for every function with a `swiftasync` parameter (async entry points,
/// their resume partial functions, async closures and thunks, the runtime's own async functions):
/// x86-64 `push %rbp; push %r14; lea 8(%rsp),%rbp`, aarch64 `str x22, [sp, #n]` beside
/// `stp x29, x30, [sp, #n+8]`. Read once per module from its file, as `FramePointerCode` reads
/// prologues, so no code page becomes resident. Code built without frame records has no slot
/// and no chain: `limitations` says so.
enum AsyncChains {
    /// Reads every function's first bytes of the modules that keep frame records and returns
    /// their async functions' address ranges in this process, sorted and merged.
    static func asyncRanges(
        of image: ELFImage, mappings: [Symbolicator.Mapping]
    ) -> (ranges: [(start: UInt, end: UInt)], functions: Int) {
        var ranges: [(start: UInt, end: UInt)] = []
        var functions = 0
        // 64 KiB a read into one buffer: under malloc's first mmap threshold, and no block per read
        // to free (a 1 MiB array a read raised that threshold for the whole process: FunctionTable).
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        for mapping in mappings {
            guard let link = image.virtualAddress(forFileOffset: mapping.fileOffset) else { continue }
            let length = mapping.end - mapping.start
            let slide = mapping.start &- link
            var chunk: (offset: UInt64, count: Int) = (0, 0)
            for function in image.functionRanges where function.size >= UInt64(prologueBytes) {
                guard let offset = image.fileOffset(forVirtualAddress: function.address),
                    offset >= mapping.fileOffset, offset + UInt64(prologueBytes) <= mapping.fileOffset + length
                else { continue }
                if offset < chunk.offset || offset + UInt64(prologueBytes) > chunk.offset + UInt64(chunk.count) {
                    let count = Int(min(UInt64(buffer.count), mapping.fileOffset + length - offset))
                    guard
                        image.read(
                            into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<count]), atFileOffset: offset)
                    else { break }
                    chunk = (offset, count)
                }
                let keepsSlot = keepsAsyncContext(
                    buffer.baseAddress!.assumingMemoryBound(to: UInt8.self) + Int(offset - chunk.offset))
                guard keepsSlot else { continue }
                functions += 1
                let start = UInt(truncatingIfNeeded: function.address &+ slide)
                let end = start + UInt(function.size)
                // Adjacent functions (an entry and its partial functions, mostly) become one range:
                // only alignment padding lies between them.
                if let last = ranges.last, start >= last.start, start - last.end < 16 {
                    ranges[ranges.count - 1].end = max(last.end, end)
                } else {
                    ranges.append((start, end))
                }
            }
        }
        return (ranges, functions)
    }

    /// Publishes the ranges of every module (the handler reads one sorted table) and the memory
    /// contexts may be in, and turns the walk on.
    static func publish(_ perModule: [[(start: UInt, end: UInt)]]) {
        var all = perModule.flatMap { $0 }.sorted { $0.start < $1.start }
        if all.count > Int(CPROBE_MAX_ASYNC_RANGES) { all.removeLast(all.count - Int(CPROBE_MAX_ASYNC_RANGES)) }
        let pairs = all.flatMap { [$0.start, $0.end] }
        _ = cprobe_set_async_functions(pairs, Int32(all.count))
        refreshContextMemory()
        cprobe_set_async_chains(enabled.load(ordering: .relaxed) ? 1 : 0, currentTask)
    }

    /// "unavailable (no frame records: MODULE, …)" once the modules are classified and some of the
    /// program's own (not the toolchain's) that hold Swift async functions keep no frame records (built
    /// with frame pointers omitted): an async function of theirs has no context slot, so a stack whose
    /// running async function is theirs ends there. Nil otherwise.
    static var unavailable: String? { unavailableNote.withLock { $0 } }

    static func noteModulesWithoutRecords(_ paths: [String]) {
        guard !paths.isEmpty else { return }
        let names = paths.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ")
        unavailableNote.withLock { $0 = "unavailable (no frame records: \(names))" }
    }

    private static let unavailableNote = Mutex<String?>(nil)
    private static let saidUnavailable = Atomic<Bool>(false)

    /// True for the first caller only: the log says it once a process.
    static func firstToSayUnavailable() -> Bool { !saidUnavailable.exchange(true, ordering: .relaxed) }

    /// Whether samples follow async chains (on by default). Off, stacks end at the executor as
    /// they did before; for benchmarks that compare the two.
    static func setEnabled(_ on: Bool) {
        enabled.store(on, ordering: .relaxed)
        cprobe_set_async_chains(on ? 1 : 0, currentTask)
    }

    private static let enabled = Atomic<Bool>(true)

    /// The runtime's `swift_task_getCurrent`, if this process has it.
    private static var currentTask: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: currentTaskAddress) }

    private static let currentTaskAddress: UInt = {
        guard let handle = dlopen(nil, RTLD_NOW) else { return 0 }
        return UInt(bitPattern: dlsym(handle, "swift_task_getCurrent"))
    }()

    /// The writable anonymous mappings (the heap, malloc's arenas), merged where adjacent: task
    /// allocators take their slabs from malloc, so every live context lies in one of them.
    /// Returns the pairs published (``writableAnonymousMemory()``).
    @discardableResult static func refreshContextMemory() -> [UInt] {
        let pairs = writableAnonymousMemory()
        let count = min(pairs.count / 2, Int(CPROBE_MAX_CONTEXT_RANGES))
        _ = cprobe_set_context_memory(pairs, Int32(count))
        lastRefresh.store(cprobe_monotonic_ns(), ordering: .relaxed)
        return pairs
    }

    private static let lastRefresh = Atomic<UInt64>(0)

    /// The writable anonymous mappings and the heap as sorted start, end pairs, adjacent ones merged:
    /// where async contexts and tasks live (task allocators and tasks come from malloc).
    static func writableAnonymousMemory() -> [UInt] {
        var pairs: [UInt] = []
        for mapping in Symbolicator.readMappings()
        where mapping.writable && (mapping.path.isEmpty || mapping.path == "[heap]") {
            if let end = pairs.last, end == UInt(mapping.start) {
                pairs[pairs.count - 1] = UInt(mapping.end)
            } else {
                pairs += [UInt(mapping.start), UInt(mapping.end)]
            }
        }
        return pairs
    }

    /// Reads the mappings again when a walk met a context outside them (the heap grew), at most once
    /// a second. Cheap to call for every stack symbolicated: one atomic exchange.
    static func refreshContextMemoryIfStale() {
        let now = cprobe_monotonic_ns()
        guard now &- lastRefresh.load(ordering: .relaxed) >= 1_000_000_000, cprobe_context_memory_stale() != 0 else {
            return
        }
        refreshContextMemory()
    }

    /// What the walks found so far: chains, frames added and chains cut short by a bad link.
    static var counts: cprobe_async_counts {
        var counts = cprobe_async_counts()
        cprobe_async_chain_counts(&counts)
        return counts
    }

    #if arch(x86_64)
        /// The bytes ``keepsAsyncContext(_:)`` reads.
        static let prologueBytes = 24

        /// `[endbr64] [sub $n,%rsp] [bts $60,%rbp] push %rbp; push %r14; lea 8(%rsp),%rbp`: the
        /// context register (r14) stored right below the frame record. The `sub` makes room for
        /// arguments a partial function pops on return; the `bts` marks async frames where the
        /// compiler was told to (clang's default; Swift 6.3 on Linux does not).
        static func keepsAsyncContext(_ code: UnsafePointer<UInt8>) -> Bool {
            var p = code
            if p[0] == 0xF3, p[1] == 0x0F, p[2] == 0x1E, p[3] == 0xFA { p += 4 }
            if p[0] == 0x48, p[1] == 0x83, p[2] == 0xEC {
                p += 4
            } else if p[0] == 0x48, p[1] == 0x81, p[2] == 0xEC {
                p += 7
            }
            if p[0] == 0x48, p[1] == 0x0F, p[2] == 0xBA, p[3] == 0xED, p[4] == 0x3C { p += 5 }
            return p[0] == 0x55 && p[1] == 0x41 && p[2] == 0x56 && p[3] == 0x48 && p[4] == 0x8D && p[5] == 0x6C
                && p[6] == 0x24 && p[7] == 0x08
        }
    #else
        /// The bytes ``keepsAsyncContext(_:)`` reads: six instructions.
        static let prologueBytes = 24

        /// Among the first six instructions (after `orr x29, x29, #1<<60`, `paciasp` or `bti c`), a
        /// `stp x29, x30, [sp, #n+8]` and a `str x22, [sp, #n]`: the context register stored right
        /// below the frame record. Any of the `str x22`: unoptimized code spills x22 again at once
        /// (swiftlang 6.2.3, aarch64: 440 of 4,939 resume functions of the tests' binary).
        static func keepsAsyncContext(_ code: UnsafePointer<UInt8>) -> Bool {
            var contextSlots: UInt64 = 0  // bit k: x22 stored at sp + 8k
            var recordSlot: UInt32?  // in words
            for index in 0..<6 {
                let instruction = UnsafeRawPointer(code).loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self)
                // STR (64-bit, unsigned offset) x22, [sp, #imm12 * 8]
                if instruction & 0xFFC0_03FF == 0xF900_03F6, case let slot = instruction >> 10 & 0xFFF, slot < 64 {
                    contextSlots |= 1 << UInt64(slot)
                }
                // STP (64-bit, signed offset) x29, x30, [sp, #imm7 * 8], imm7 not negative
                if instruction & 0xFFE0_7FFF == 0xA900_7BFD { recordSlot = instruction >> 15 & 0x3F }
            }
            guard let recordSlot, recordSlot >= 1 else { return false }
            return contextSlots & (1 << UInt64(recordSlot - 1)) != 0
        }
    #endif
}

extension Watchdog {
    /// Whether samples follow Swift's async chains (on by default), for benchmarks that compare the
    /// two. Process-wide. Not API.
    @_spi(Benchmarks) public static func followAsyncChains(_ on: Bool) { AsyncChains.setEnabled(on) }
}
