import CProbe
import ELFSymbols
import Foundation

/// Which loaded code keeps frame records, so the signal handler can walk them instead of asking
/// libunwind for every frame.
///
/// A module counts when most of its functions start by setting up a frame record (x86-64: `push %rbp;
/// mov %rsp,%rbp` after an optional `endbr64`; aarch64: `stp x29, x30, [sp…]` among the first four
/// instructions): Swift code does (every non-leaf function), C built with `-fomit-frame-pointer`
/// does not. Modules are
/// classified once per process, when the first sampler or watchdog starts; code loaded later is
/// unwound with libunwind, which is slower but never wrong.
package enum FramePointerCode {
    /// One module's verdict, for diagnostics (`modules`).
    package struct Module: Sendable, CustomStringConvertible {
        public var path: String
        /// Functions whose first bytes were read, and how many of them set up a frame record.
        public var sampled: Int
        public var withFrameRecord: Int
        public var keepsFrameRecords: Bool
        /// Functions that keep a Swift async context below their frame record (`AsyncChains`).
        public var asyncFunctions = 0

        public var description: String {
            "\(keepsFrameRecords ? "frame records" : "libunwind    ") \(withFrameRecord)/\(sampled) "
                + "\(asyncFunctions) async \(path)"
        }
    }

    /// A module whose sampled functions set up a frame record at least this often keeps them.
    /// Swift modules measure 0.8–1.0 (leaf functions have no prologue), C libraries built
    /// without frame pointers well under 0.2.
    static let threshold = 0.5

    /// Classifies the loaded modules and publishes their executable ranges; later calls return
    /// the first result. Reading a large executable's symbols takes a few hundred milliseconds.
    @discardableResult
    package static func publish() -> [Module] { published }

    /// Publishes on a thread of its own, so a watchdog starts watching at once; until then its
    /// samples are unwound with libunwind.
    static func publishInBackground() {
        _ = backgroundPublication
    }

    private static let backgroundPublication: Void = {
        ProbeThreads.start(name: "probe-fpcode") { publish() }
    }()

    private static let published: [Module] = publication.modules

    /// The modules' verdicts, and the images whose function indexes the signal handler reads for
    /// ever (kept here, so nothing can free them).
    private static let publication: (modules: [Module], images: [ELFImage]) = {
        let (modules, ranges, images, asyncRanges) = classify(Symbolicator.readMappings())
        let published = Array(ranges.prefix(Int(CPROBE_MAX_FP_RANGES)))
        _ = cprobe_set_frame_pointer_code(published, Int32(published.count))
        AsyncChains.publish(asyncRanges)
        return (modules, images)
    }()

    /// Each module's verdict, the ranges of frame-record code, the images kept for the handler, and
    /// the async functions' ranges of each module that keeps frame records.
    static func classify(
        _ mappings: [Symbolicator.Mapping]
    ) -> ([Module], [cprobe_code_range], [ELFImage], [[(start: UInt, end: UInt)]]) {
        // Executable, file-backed mappings (a module may have several), by path.
        var executable: [String: [Symbolicator.Mapping]] = [:]
        var order: [String] = []
        for mapping in mappings where mapping.executable && mapping.path.hasPrefix("/") {
            if executable[mapping.path] == nil { order.append(mapping.path) }
            executable[mapping.path, default: []].append(mapping)
        }
        var modules: [Module] = []
        var ranges: [cprobe_code_range] = []
        var images: [ELFImage] = []
        var asyncRanges: [[(start: UInt, end: UInt)]] = []
        var asyncWithoutRecords: [String] = []
        for path in order {
            let maps = executable[path] ?? []
            // The symbolicator's image, which it keeps: stall stacks name functions of these modules.
            guard let image = Symbolicator.shared.image(path: path) else { continue }
            let (sampled, withRecord) = countFrameRecords(image, mappings: maps)
            let keeps = sampled > 0 && Double(withRecord) >= threshold * Double(sampled)
            var module = Module(path: path, sampled: sampled, withFrameRecord: withRecord, keepsFrameRecords: keeps)
            guard keeps else {
                modules.append(module)
                // The program's own async code only: a toolchain library built without frame records
                // (Swift Testing's) is not the service's to rebuild.
                if !InAppFrames.isSystemModule(path), image.hasFunction(nameEndingWith: ["TQ0_", "TY0_"]) {
                    asyncWithoutRecords.append(path)
                }
                continue
            }
            let async = AsyncChains.asyncRanges(of: image, mappings: maps)
            module.asyncFunctions = async.functions
            modules.append(module)
            asyncRanges.append(async.ranges)
            images.append(image)
            let index = image.functionIndex
            for mapping in maps {
                var range = cprobe_code_range(
                    start: UInt(mapping.start), end: UInt(mapping.end), function_base: 0, functions: nil,
                    function_count: 0)
                // Where link-time address `index.base` sits in this process.
                if let link = image.virtualAddress(forFileOffset: mapping.fileOffset), index.count <= Int(Int32.max) {
                    range.function_base = UInt(truncatingIfNeeded: index.base &+ (mapping.start &- link))
                    range.functions = index.entries?.assumingMemoryBound(to: UInt32.self)
                    range.function_count = Int32(index.count)
                }
                ranges.append(range)
            }
        }
        AsyncChains.noteModulesWithoutRecords(asyncWithoutRecords)
        return (modules, ranges, images, asyncRanges)
    }

    /// Reads the first bytes of up to 1,000 functions (spread over the module) from the module's file
    /// with `pread`: reading the mapped code made nearly every code page resident, most of the 14 MB an
    /// idle watched service had (docs/probe-in-a-server.md#what-really-stalls-a-swift-server-and-what-watching-costs-at-rest).
    /// 1,000 tell Swift modules (0.8–1.0 with a frame record) from C without frame pointers (under 0.2)
    /// with a standard error under 2%. Functions under 32 bytes (thunks, tiny leaves) are left out.
    private static func countFrameRecords(_ image: ELFImage, mappings: [Symbolicator.Mapping]) -> (Int, Int) {
        // Counted, then walked, rather than filtered into an array: no large block to free (FunctionTable).
        let eligible = image.functionRanges.reduce(0) { $0 + ($1.size >= 32 ? 1 : 0) }
        guard eligible > 0 else { return (0, 0) }
        let stride = max(1, eligible / 1000)
        var sampled = 0
        var withRecord = 0
        var seen = 0
        for function in image.functionRanges where function.size >= 32 {
            seen += 1
            guard (seen - 1) % stride == 0,
                let offset = image.fileOffset(forVirtualAddress: function.address),
                mappings.contains(where: {
                    offset >= $0.fileOffset && offset + 8 <= $0.fileOffset + ($0.end - $0.start)
                }),
                let code = image.bytes(atFileOffset: offset, count: prologueBytes)
            else { continue }
            sampled += 1
            if code.withUnsafeBufferPointer({ startsWithFrameRecord($0.baseAddress!) }) { withRecord += 1 }
        }
        return (sampled, withRecord)
    }

    #if arch(x86_64)
        /// The bytes ``startsWithFrameRecord(_:)`` reads.
        static let prologueBytes = 8

        /// `[endbr64] push %rbp; mov %rsp,%rbp` (`f3 0f 1e fa`, `55`, `48 89 e5`).
        static func startsWithFrameRecord(_ code: UnsafePointer<UInt8>) -> Bool {
            var p = code
            if p[0] == 0xF3, p[1] == 0x0F, p[2] == 0x1E, p[3] == 0xFA { p += 4 }
            return p[0] == 0x55 && p[1] == 0x48 && p[2] == 0x89 && p[3] == 0xE5
        }
    #else
        /// The bytes ``startsWithFrameRecord(_:)`` reads: four instructions.
        static let prologueBytes = 16

        /// `stp x29, x30, [sp, #imm]` or `[sp, #imm]!` among the first four instructions (after
        /// `paciasp`/`bti c`, a `sub sp`, or other registers' saves): aarch64 compilers put the
        /// frame record anywhere in the callee-saved area, and the pair store is what all share.
        static func startsWithFrameRecord(_ code: UnsafePointer<UInt8>) -> Bool {
            for index in 0..<4 {
                let instruction = UnsafeRawPointer(code).loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self)
                // STP (64-bit) signed-offset or pre-index form, Rt = x29, Rt2 = x30, Rn = sp.
                let form = instruction & 0xFFC0_0000
                if (form == 0xA900_0000 || form == 0xA980_0000) && instruction & 0x7FFF == 0x7BFD { return true }
            }
            return false
        }
    #endif
}

extension Watchdog {
    /// Waits for the start-up work a process's first watchdog leaves to a thread of its own (the
    /// frame-record verdicts), so that a benchmark's measured samples of a watched thread do not
    /// count its allocations. Not API.
    @_spi(Benchmarks) public static func finishStartUpWork() { FramePointerCode.publish() }
}
