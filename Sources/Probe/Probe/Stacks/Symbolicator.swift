import CProbe
import ELFSymbols
import Foundation
import ProbeRecords
import Synchronization

/// Turns program counters of this process into stack frames: demangled function name, module
/// path, build ID and the module-relative (link-time) address, so a stack can be symbolicated
/// again offline with `llvm-symbolizer --obj=<module> <moduleOffset>` or `addr2line -f -e`.
///
/// Names come from the ELF symbol tables (`.symtab` as well as `.dynsym`) of the files in
/// `/proc/self/maps`, so internal functions of the executable resolve; `dladdr` would only see
/// exported ones. Runs on the caller's thread, never in a signal handler. Resolved addresses are
/// cached; `/proc/self/maps` is read again only when an address falls outside every known mapping.
///
/// A module's image (its function index, 12 bytes a function; names are read from the file when
/// needed) is loaded once and kept. The modules loaded at start are all loaded when the first
/// watchdog starts, by `FramePointerCode`'s classification, which reads the same images: a
/// long-running process then holds them from its first seconds, instead of growing by a module's
/// index whenever a stall first passes through that module, hours later perhaps.
public final class Symbolicator: Sendable {
    /// The process-wide instance that watchdogs use.
    public static let shared = Symbolicator()

    struct Mapping {
        var start: UInt64
        var end: UInt64
        var fileOffset: UInt64
        var path: String
        /// Readable and executable (`r-x`): code whose bytes can be read in place.
        var executable = false
        /// Readable and writable (`rw-`): data, the heap, stacks.
        var writable = false
    }

    private struct State {
        var mappings: [Mapping] = []
        var images: [String: ELFImage?] = [:]
        var frames: [UInt64: StackFrame] = [:]
        /// Demangled names by the function's start in its module: the frames of one function
        /// share one name (a Swift name is often 200-500 bytes; a profile meets many pcs in each).
        var names: [FunctionKey: String] = [:]
    }

    private struct FunctionKey: Hashable {
        var module: String
        var start: UInt64
    }

    private let state = Mutex(State())
    /// Most cached addresses, and most cached names; each cache is dropped when it grows past this.
    /// 4,096 frames fill a table of 8,192 buckets, 128 bytes each (key and `StackFrame`): ~1 MiB
    /// besides their names. A miss costs a binary search and a name already cached; 16,384 held ~4 MiB
    /// for good, 65,536 grew a 30-minute soak by ~3 MB (docs/probe-in-a-server.md, "Soak").
    private let cacheLimit = 4_096

    public init() {}

    /// Symbolicates a stack captured by a sample: innermost first, the first address is the
    /// interrupted instruction and the others are return addresses (looked up at `address - 1`,
    /// which is inside the call instruction, so a call that ends a function still names its caller),
    /// or async resume points (tagged by the sampler; looked up as they are, marked `async`).
    public func symbolicate(stack: [UInt]) -> [StackFrame] {
        AsyncChains.refreshContextMemoryIfStale()
        return stack.enumerated().map { index, pc in
            let (address, lookup, async) = Self.lookupAddress(pc, index: index)
            var frame = symbolicate(lookupAddress: lookup)
            frame.address = address
            if async { frame.async = true }
            return frame
        }
    }

    /// A sampled pc's address, the address to look its function up at, and whether it is an async
    /// resume point.
    private static func lookupAddress(_ pc: UInt, index: Int) -> (address: UInt64, lookup: UInt64, async: Bool) {
        let async = pc & cprobe_async_frame_tag() != 0
        let address = UInt64(pc & ~cprobe_async_frame_tag())
        return (address, address &- (index == 0 || async ? 0 : 1), async)
    }

    /// Symbolicates one address exactly as given.
    public func symbolicate(address: UInt64) -> StackFrame {
        symbolicate(lookupAddress: address)
    }

    /// Drops cached frames and mappings (modules stay loaded). Used to measure a cold lookup.
    public func clearCache() {
        state.withLock {
            $0.frames.removeAll(keepingCapacity: true)
            $0.names.removeAll(keepingCapacity: true)
            $0.mappings.removeAll()
            $0.images.removeAll()
        }
    }

    private func symbolicate(lookupAddress address: UInt64) -> StackFrame {
        state.withLock { state in
            if let cached = state.frames[address] { return cached }
            if state.frames.count >= cacheLimit { state.frames.removeAll(keepingCapacity: true) }
            state.frames.growStraightPast64KiB(toHold: cacheLimit)
            let frame = resolve(address, in: &state)
            state.frames[address] = frame
            return frame
        }
    }

    /// Symbolicates a sampled stack as ``symbolicate(stack:)`` does, with each frame's symbol as the
    /// binary has it (mangled; nil when none covers it): what a compiled-code comparison looks up.
    /// Uncached: a caller symbolicating many samples keeps its own table by address.
    package func symbolicateWithLinkNames(stack: [UInt]) -> [(frame: StackFrame, linkName: String?)] {
        state.withLock { state in
            stack.enumerated().map { index, pc in
                let (address, lookup, async) = Self.lookupAddress(pc, index: index)
                var resolved = lookUp(lookup, in: &state)
                resolved.frame.address = address
                if async { resolved.frame.async = true }
                return resolved
            }
        }
    }

    private func resolve(_ address: UInt64, in state: inout State) -> StackFrame {
        lookUp(address, in: &state).frame
    }

    private func lookUp(_ address: UInt64, in state: inout State) -> (frame: StackFrame, linkName: String?) {
        var mapping = Self.mapping(containing: address, in: state.mappings)
        if mapping == nil {
            state.mappings = Self.readMappings()
            mapping = Self.mapping(containing: address, in: state.mappings)
        }
        guard let mapping else { return (StackFrame(address: address), nil) }
        var frame = StackFrame(address: address, module: mapping.path)
        let isVDSO = mapping.path == "[vdso]"
        guard mapping.path.hasPrefix("/") || isVDSO else { return (frame, nil) }  // anonymous JIT code, …
        let image: ELFImage?
        if let cached = state.images[mapping.path] {
            image = cached
        } else if isVDSO, let start = UnsafeRawPointer(bitPattern: UInt(mapping.start)) {
            // clock_gettime and friends run in the vDSO: the kernel maps a whole ELF image there.
            image = try? ELFImage(
                path: mapping.path, contents: Data(bytes: start, count: Int(mapping.end - mapping.start)))
            state.images[mapping.path] = image
        } else {
            image = Self.image(path: mapping.path, in: &state)
        }
        guard let image else { return (frame, nil) }
        frame.buildID = image.buildID
        let fileOffset = address - mapping.start + mapping.fileOffset
        guard let linkAddress = image.virtualAddress(forFileOffset: fileOffset) else { return (frame, nil) }
        frame.moduleOffset = linkAddress
        if let (symbol, offset) = image.symbol(containing: linkAddress) {
            let key = FunctionKey(module: mapping.path, start: linkAddress - offset)
            if let name = state.names[key] {
                frame.symbol = name
            } else {
                let name = Demangler.functionName(symbol.name)
                if state.names.count >= cacheLimit { state.names.removeAll(keepingCapacity: true) }
                state.names.growStraightPast64KiB(toHold: cacheLimit)
                state.names[key] = name
                frame.symbol = name
            }
            frame.symbolOffset = offset
            return (frame, symbol.name)
        }
        return (frame, nil)
    }

    /// The image of the module file at `path`, loaded once and kept (nil, also kept, when the file
    /// cannot be read as ELF).
    func image(path: String) -> ELFImage? {
        state.withLock { Self.image(path: path, in: &$0) }
    }

    /// The module files whose images it keeps, each read through a descriptor held open for good
    /// (``ELFSource``): a process's descriptors grow by one as each new module shows up in a stack.
    package var heldImagePaths: Set<String> {
        state.withLock { Set($0.images.compactMap { $0.value == nil ? nil : $0.key }) }
    }

    private static func image(path: String, in state: inout State) -> ELFImage? {
        if let cached = state.images[path] { return cached }
        let image = try? ELFImage(path: path)
        state.images[path] = image
        return image
    }

    private static func mapping(containing address: UInt64, in mappings: [Mapping]) -> Mapping? {
        var low = 0
        var high = mappings.count
        while low < high {
            let mid = (low + high) / 2
            if mappings[mid].start <= address { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return nil }
        let candidate = mappings[low - 1]
        return address < candidate.end ? candidate : nil
    }

    /// Parses `/proc/self/maps` lines: `start-end perms offset dev inode [path]`.
    static func readMappings() -> [Mapping] {
        guard let text = ThreadInfo.read("/proc/self/maps") else { return [] }
        var result: [Mapping] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count >= 5 else { continue }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = UInt64(range[0], radix: 16), let end = UInt64(range[1], radix: 16),
                let offset = UInt64(fields[2], radix: 16)
            else { continue }
            let path = fields.count == 6 ? fields[5].trimmingCharacters(in: .whitespaces) : ""
            let permissions = fields[1]
            result.append(
                Mapping(
                    start: start, end: end, fileOffset: offset, path: path,
                    executable: permissions.hasPrefix("r") && permissions.dropFirst(2).hasPrefix("x"),
                    writable: permissions.hasPrefix("rw")))
        }
        return result.sorted { $0.start < $1.start }
    }
}

/// Demangles Swift symbol names with the Swift runtime's own demangler (`swift_demangle`) and C++
/// ones (`_Z…`: the runtime's own, `swift::runJobInEstablishedExecutorContext(swift::Job*)`) with
/// libstdc++'s `__cxa_demangle`, which the Swift runtime loads; C names are returned as they are,
/// and so is a C++ name where no `__cxa_demangle` is exported (a fully static executable).
@_spi(Tooling) public enum Demangler {
    public static func demangle(_ name: String) -> String {
        if name.hasPrefix("_Z") { return demangleCxx(name) ?? name }
        guard name.hasPrefix("$s") || name.hasPrefix("_$s") || name.hasPrefix("$S") || name.hasPrefix("_T0") else {
            return name
        }
        return name.withCString { cName in
            guard let demangled = swift_demangle(cName, strlen(cName), nil, nil, 0) else { return name }
            defer { free(demangled) }
            return String(cString: demangled)
        }
    }

    typealias CxxDemangle =
        @convention(c) (
            UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<Int>?,
            UnsafeMutablePointer<Int32>?
        ) -> UnsafeMutablePointer<CChar>?

    /// Looked up once, by name, in what the process has loaded: Probe does not link libstdc++ itself.
    static let cxxDemangle: CxxDemangle? = {
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "__cxa_demangle") else { return nil }
        return unsafeBitCast(symbol, to: CxxDemangle.self)
    }()

    static func demangleCxx(_ name: String) -> String? {
        guard let cxxDemangle else { return nil }
        var status: Int32 = 0
        guard let demangled = cxxDemangle(name, nil, nil, &status), status == 0 else { return nil }
        defer { free(demangled) }
        return String(cString: demangled)
    }

    /// The demangled name of the function `name` is code of: a resume partial function of an async
    /// function ("(1) suspend resume partial function for X") is named X, as Swift's backtracer
    /// names its `[async]` frames, so a function's frames merge whatever await they stand at.
    public static func functionName(_ name: String) -> String {
        let demangled = demangle(name)
        guard demangled.hasPrefix("("), let close = demangled.firstIndex(of: ")") else { return demangled }
        for kind in [") suspend resume partial function for ", ") await resume partial function for "] {
            if demangled[close...].hasPrefix(kind) {
                return String(demangled[demangled.index(close, offsetBy: kind.count)...])
            }
        }
        return demangled
    }
}

extension Dictionary {
    /// Before an insertion: a table about to grow past 64 KiB grows at once to room for `limit`
    /// entries, kept for good (a full cache is emptied keeping its room). Each doubling frees the
    /// table before, and freeing one malloc had mapped (over 128 KiB) raises glibc's mmap threshold
    /// for the whole process: the frames' 512 KiB did, in a soak (docs/probe-in-a-server.md, "Soak").
    fileprivate mutating func growStraightPast64KiB(toHold limit: Int) {
        guard count == capacity, capacity < limit else { return }
        let bucketBytes = MemoryLayout<Key>.stride + MemoryLayout<Value>.stride
        // Doubling makes about 2.7 buckets an entry held now (the table is at most 3/4 full).
        if (capacity + 1) * 3 * bucketBytes > 64 << 10 { reserveCapacity(limit) }
    }
}
