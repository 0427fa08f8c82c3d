import CProbe
import CProbeHeap
import Foundation
import PerfkitPprof
import Probe
import ProbeRecords
import Synchronization

/// Reads the sampler's sites and turns them into a pprof profile: Go's four heap sample types,
/// each site a sample labelled `type` (when its allocations are Swift objects), `thread` and
/// `thread_kind`.
final class HeapProfileBuilder: HeapProfileSource {
    static let shared = HeapProfileBuilder()

    static let allocObjects = PprofProfile.ValueType(type: "alloc_objects", unit: "count")
    static let allocSpace = PprofProfile.ValueType(type: "alloc_space", unit: "bytes")
    static let inuseObjects = PprofProfile.ValueType(type: "inuse_objects", unit: "count")
    static let inuseSpace = PprofProfile.ValueType(type: "inuse_space", unit: "bytes")

    /// Type names by candidate word, dropped when past ``typeNameLimit``: a C allocation's first word
    /// is any value, so candidates never met before come with each profile served, for as long as the
    /// service runs (a scraper every 10 s for a month would hold millions).
    private let typeNames = Mutex<[UInt: String?]>([:])
    static let typeNameLimit = 4_096

    /// One site as read: estimates (already scaled), its stack and labels' sources.
    struct Site {
        var stack: [UInt]
        var tid: Int32
        var threadName: String
        var typeCandidate: UInt
        var allocObjects: Int64
        var allocBytes: Int64
        var inuseObjects: Int64
        var inuseBytes: Int64

        init(_ raw: cprobe_heap_site) {
            let depth = Int(min(raw.depth, UInt32(CPROBE_HEAP_FRAMES)))
            stack = withUnsafeBytes(of: raw.pcs) { Array($0.bindMemory(to: UInt.self).prefix(depth)) }
            threadName = withUnsafeBytes(of: raw.thread_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            tid = raw.tid
            typeCandidate = raw.type_candidate
            allocObjects = Int64(raw.alloc_objects_1024 / 1024)
            allocBytes = Int64(raw.alloc_bytes)
            inuseObjects = Int64(raw.alloc_objects_1024 &- min(raw.free_objects_1024, raw.alloc_objects_1024)) / 1024
            inuseBytes = Int64(raw.alloc_bytes &- min(raw.free_bytes, raw.alloc_bytes))
        }
    }

    /// Site by site: each is read, symbolicated and added to the profile's tables before the next,
    /// so what is built is the tables, never every site's frames at once.
    func heapProfile(allocations: Bool) -> Data {
        cprobe_heap_note_live_types()
        let symbolicator = Symbolicator.shared
        var builder = ProcessProfileEncoding.Builder()
        var raw = cprobe_heap_site()
        for index in 0..<cprobe_heap_site_capacity() where cprobe_heap_read_site(index, &raw) == 1 {
            builder.add(sample(of: Site(raw), symbolicator: symbolicator))
        }
        var counts = cprobe_heap_counts()
        cprobe_heap_read_counts(&counts)
        let interval = Int64(cprobe_heap_interval())
        var comments = [
            "heap profile: one allocation sampled every \(interval) bytes on average; \(counts.samples) samples, "
                + "\(counts.live) of them in use; values are estimates (each sample scaled by 1/P(sampled), as Go's)"
        ]
        if counts.dropped_sites > 0 {
            comments.append("\(counts.dropped_sites) samples dropped: every site slot taken")
        }
        if case let problem = cprobe_read_memory_errno(), problem != 0 {
            comments.append(
                "no type labels: process_vm_readv, which checks a type before it is named, fails here ("
                    + "\(String(cString: strerror(problem))))")
        }
        if counts.untracked_addresses > 0 {
            comments.append("\(counts.untracked_addresses) samples not tracked to their free: counted as freed at once")
        }
        var profile = builder.profile(
            sampleTypes: [Self.allocObjects, Self.allocSpace, Self.inuseObjects, Self.inuseSpace],
            periodType: PprofProfile.ValueType(type: "space", unit: "bytes"), period: interval,
            timeNanos: Int64(Date().timeIntervalSince1970 * 1e9), durationNanos: 0, comments: comments)
        profile.defaultSampleType = allocations ? Self.allocSpace.type : Self.inuseSpace.type
        return profile.encoded()
    }

    private func sample(of site: Site, symbolicator: Symbolicator) -> ProcessProfileEncoding.Sample {
        // Every address is a return address: looked up inside its call instruction.
        let stack = site.stack.enumerated().map { index, pc in
            index == 0 && pc & cprobe_async_frame_tag() == 0 ? pc &- 1 : pc
        }
        let frames = Self.droppingAllocatorFrames(symbolicator.symbolicate(stack: stack))
        var labels = ProfileSamples.labels(name: site.threadName, tid: site.tid)
        if let type = typeName(site.typeCandidate) {
            labels.insert(.init(key: "type", value: .string(type)), at: 0)
        }
        return ProcessProfileEncoding.Sample(
            frames: frames, values: [site.allocObjects, site.allocBytes, site.inuseObjects, site.inuseBytes],
            labels: labels)
    }

    /// The stack from the first frame of the program's own code that allocated: the allocator's and
    /// the standard library's frames above it are left out (`swift_slowAlloc`, `swift_allocObject`,
    /// `Array.init(repeating:count:)` even when specialized into the program, a class's
    /// `__allocating_init`), and ProbeHeap's own, as Go's profiles leave out `runtime.mallocgc`.
    /// One frame at least stays.
    static func droppingAllocatorFrames(_ frames: [StackFrame]) -> [StackFrame] {
        var first = 0
        while first < frames.count - 1 && isAllocatorFrame(frames[first]) { first += 1 }
        return Array(frames[first...])
    }

    /// ProbeHeap's own (the interposer jumps to `cprobe_heap_*`; the compiler may split a cold part off).
    static let allocationFunctions: Set<String> = [
        "malloc", "calloc", "realloc", "reallocarray", "free", "memalign", "aligned_alloc", "posix_memalign",
        "valloc", "pvalloc",
    ]

    /// The standard library's and runtime's modules: their frames are dropped by module, for a
    /// stripped library's unnamed frames too (Debian's swiftlang strips libswiftSwiftOnoneSupport,
    /// whose prespecialized `Array.init(repeating:count:)` a debug build allocates through).
    static let runtimeModules = [
        "libswiftCore.so", "libswiftSwiftOnoneSupport.so", "libswift_Concurrency.so", "libFoundation",
        "libswiftDispatch.so", "libdispatch.so",
        "libswiftSynchronization.so", "libc.so", "libstdc++.so", "libswift_StringProcessing.so",
    ]

    static func isAllocatorFrame(_ frame: StackFrame) -> Bool {
        if let module = frame.module.map({ ($0 as NSString).lastPathComponent }),
            runtimeModules.contains(where: { module.hasPrefix($0) })
        {
            return true
        }
        guard let name = frame.symbol else { return false }
        return name.hasPrefix("cprobe_heap_") || allocationFunctions.contains(name)
            || name.contains(".__allocating_init(") || unspecialized(name).hasPrefix("Swift.")
    }

    /// `merged generic specialization <Swift.UInt64> of Swift.Array.init…` → `Swift.Array.init…`.
    static func unspecialized(_ name: String) -> Substring {
        var rest = Substring(name)
        while true {
            if rest.hasPrefix("merged ") {
                rest = rest.dropFirst("merged ".count)
            } else if rest.hasPrefix("specialized ") {
                rest = rest.dropFirst("specialized ".count)
            } else if let open = rest.firstIndex(of: "<"), rest[..<open].hasSuffix("specialization ") {
                // The arguments' closing bracket (they nest), then " of ".
                var depth = 0
                var index = open
                while index < rest.endIndex {
                    if rest[index] == "<" { depth += 1 }
                    if rest[index] == ">" {
                        depth -= 1
                        if depth == 0 { break }
                    }
                    index = rest.index(after: index)
                }
                guard index < rest.endIndex else { return rest }
                let after = rest[rest.index(after: index)...]
                guard after.hasPrefix(" of ") else { return rest }
                rest = after.dropFirst(" of ".count)
            } else {
                return rest
            }
        }
    }

    /// The Swift type of allocations whose first word is `candidate`, or nil when it is not a
    /// Swift heap object's metadata. Read through process_vm_readv, so a candidate that is any
    /// other word (a C allocation's first bytes) is never dereferenced in place.
    func typeName(_ candidate: UInt) -> String? {
        guard candidate != 0, candidate & 7 == 0 else { return nil }
        if let known = typeNames.withLock({ $0[candidate] }) { return known }
        let name = Self.readTypeName(candidate)
        typeNames.withLock { names in
            if names.count >= Self.typeNameLimit { names.removeAll(keepingCapacity: true) }
            names[candidate] = name
        }
        return name
    }

    private static func readTypeName(_ metadata: UInt) -> String? {
        guard let kind = word(at: metadata) else { return nil }
        switch kind {
        case 0:
            // A Swift class (no Objective-C interop on Linux): its nominal type descriptor at +40,
            // whose flags' low five bits say class (16).
            guard let descriptor = word(at: metadata + 40), descriptor != 0, descriptor & 3 == 0,
                let flags = word(at: descriptor), flags & 0x1F == 16
            else { return nil }
            let type = unsafeBitCast(UnsafeRawPointer(bitPattern: metadata)!, to: Any.Type.self)
            return _typeName(type, qualified: true)
        case 0x400: return "(closure context or box)"
        case 0x500: return "(generic box)"
        case 0x501: return "(error)"
        case 0x502: return "(task)"
        case 0x503: return "(job)"
        default: return nil
        }
    }

    private static func word(at address: UInt) -> UInt? {
        var value: UInt = 0
        return cprobe_read_memory(address, &value, UInt(MemoryLayout<UInt>.size)) == 0 ? value : nil
    }
}
