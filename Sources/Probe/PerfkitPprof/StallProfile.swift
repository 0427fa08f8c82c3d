import Foundation
import ProbeRecords

/// Stalls as a pprof profile (`perfkit stalls --format pprof`, and Probe's
/// `WatchdogConfiguration.pprofDirectory`): each stall's call tree as its
/// distinct stacks (`SampledPaths`, leaf first here), valued in `samples/count` and
/// `wall/nanoseconds`, and labelled with the stall they come from (`stall_id`, as `--list`
/// numbers them; `watchdog`; `class`; `thread`), so pprof's `-tagfocus`, `-tagshow` and
/// `-tags` pick and show stalls. Frames become one `Location` per module and address, one
/// `Function` per name (and file), one `Mapping` per module file and build ID.
public enum StallProfile {
    public static let samples = PprofProfile.ValueType(type: "samples", unit: "count")
    public static let wall = PprofProfile.ValueType(type: "wall", unit: "nanoseconds")

    /// The profile of `stalls`, each with the number it is labelled with (`stall_id`); those
    /// without a call tree add nothing. `comment` heads the profile's comments.
    public static func profile(_ stalls: [(number: Int, record: StallRecord)], comment: String) -> PprofProfile {
        var tables = ProfileTables()
        var samples: [PprofProfile.Sample] = []
        var intervals: [Int64] = []
        for stall in stalls {
            guard let tree = stall.record.callTree else { continue }
            let interval = Int64(max(1, sampleInterval(of: stall.record).rounded()))
            intervals.append(interval)
            var paths = SampledPaths(keepingOrigins: true)
            paths.add(tree)
            let locationIDs = paths.frames.map { tables.location(of: $0) }
            let labels = labels(of: stall)
            for (path, weight) in zip(paths.paths, paths.weights) {
                samples.append(
                    PprofProfile.Sample(
                        locationIDs: path.reversed().map { locationIDs[$0] },
                        values: [Int64(weight), Int64(weight) * interval], labels: labels))
            }
        }

        var profile = PprofProfile(sampleTypes: [Self.samples, wall])
        profile.samples = samples
        profile.mappings = tables.finishMappings()
        profile.locations = tables.locations
        profile.functions = tables.functions
        profile.periodType = wall
        // One period for the profile: the stalls' median interval (each stall's wall values use its own).
        profile.period = intervals.sorted().dropFirst(intervals.count / 2).first ?? 0
        profile.defaultSampleType = Self.samples.type
        let records = stalls.map(\.record)
        if let first = records.map(\.start).min() {
            let end = records.map { $0.start.addingTimeInterval($0.durationNanoseconds / 1e9) }.max()!
            profile.timeNanos = Int64((first.timeIntervalSince1970 * 1e9).rounded())
            profile.durationNanos = Int64((end.timeIntervalSince(first) * 1e9).rounded())
        }
        profile.comments = [
            comment,
            "wall = samples × the stall's sample interval, estimated from its record",
        ]
        return profile
    }

    /// The time one sample of the stall stands for. A record does not hold the watchdog's
    /// configured `sampleInterval`, so it is estimated: `sampledNanoseconds` spans the first to
    /// the last sample, n − 1 intervals for a thread sampled n times (a pool starvation's threads
    /// are sampled together: its most-sampled thread's n). A record without it (Probe before
    /// `sampledNanoseconds`, or a single sample) falls back on the duration: sampling starts at
    /// half the threshold, so the rest of the duration over the samples (the whole duration if
    /// that leaves nothing). Samples skipped for the sampling budget lengthen the estimate, which
    /// is what a sample then stands for.
    public static func sampleInterval(of record: StallRecord) -> Double {
        let taken = max(1, record.threads?.map(\.sampleCount).max() ?? record.sampleCount)
        if let sampled = record.sampledNanoseconds, sampled > 0, taken > 1 {
            return sampled / Double(taken - 1)
        }
        let afterHalfThreshold = record.durationNanoseconds - record.thresholdNanoseconds / 2
        return (afterHalfThreshold > 0 ? afterHalfThreshold : record.durationNanoseconds) / Double(taken)
    }

    /// `stall_id`, `watchdog`, `class`, and `thread`: the stalled thread's id, or every pool
    /// thread's for a pool starvation (its call tree merges their samples, so each sample is
    /// labelled with them all). No `thread` when the record has none (a starved queue: id 0).
    static func labels(of stall: (number: Int, record: StallRecord)) -> [PprofProfile.Label] {
        var labels: [PprofProfile.Label] = [
            .init(key: "stall_id", value: .number(Int64(stall.number), unit: nil)),
            .init(key: "watchdog", value: .string(stall.record.watchdog)),
            .init(key: "class", value: .string(stall.record.classification.rawValue)),
        ]
        var seen: Set<Int32> = [0]
        for thread in stall.record.threads?.map(\.threadID) ?? [stall.record.threadID]
        where seen.insert(thread).inserted {
            labels.append(.init(key: "thread", value: .number(Int64(thread), unit: nil)))
        }
        return labels
    }
}

/// The profile's locations, functions and mappings, each made once, ids from 1 in order; shared by
/// stall profiles and whole-process profiles (``ProcessProfileEncoding``).
struct ProfileTables {
    private(set) var locations: [PprofProfile.Location] = []
    private(set) var functions: [PprofProfile.Function] = []
    private var locationIDs: [ProfileFrame: UInt64] = [:]
    private var functionIDs: [FunctionKey: UInt64] = [:]
    private var modules: [ModuleKey: Module] = [:]

    private struct FunctionKey: Hashable {
        var name: String
        var file: String?
    }

    private struct ModuleKey: Hashable {
        var path: String
        var buildID: String?
    }

    /// What is known of a module from its frames: where it was loaded, how far its sampled
    /// addresses reach, and whether every frame in it had a file and a line.
    private struct Module {
        var id: UInt64
        var start: UInt64
        var limit: UInt64
        var allFiles: Bool
        var allLines: Bool
    }

    /// The frame's location: at its address in its module; a frame with no module (Probe's
    /// `[syscall …]` stand-ins, the `[no frames]` label) has no mapping.
    mutating func location(of frame: ProfileFrame) -> UInt64 {
        if let id = locationIDs[frame] { return id }
        let id = UInt64(locations.count + 1)
        var mappingID: UInt64 = 0
        if let origin = frame.origin, let module = origin.module {
            mappingID = mapping(of: origin, in: module, hasFile: frame.file != nil, hasLine: frame.line != nil)
        }
        let line = PprofProfile.Line(functionID: function(of: frame), line: Int64(frame.line ?? 0))
        locations.append(
            PprofProfile.Location(id: id, mappingID: mappingID, address: frame.origin?.address ?? 0, lines: [line]))
        locationIDs[frame] = id
        return id
    }

    /// Names are demangled. Frames record no mangled name, so the system name is left unset
    /// rather than the same: pprof would then take the name for C++ and cut it short (a Swift
    /// name with `->` loses its parameters, `ProbeCommands.demoBusyLoop -> `). A frame's line is where
    /// it was sampled, not where its function starts: it goes in the location's line, and
    /// `start_line` stays unset.
    private mutating func function(of frame: ProfileFrame) -> UInt64 {
        let key = FunctionKey(name: frame.name, file: frame.file)
        if let id = functionIDs[key] { return id }
        let id = UInt64(functions.count + 1)
        functions.append(PprofProfile.Function(id: id, name: frame.name, systemName: nil, filename: frame.file))
        functionIDs[key] = id
        return id
    }

    /// The module's mapping. Frames record no mapping bounds: it starts at the module's load
    /// bias (the address less `moduleOffset`, the link-time address Probe resolved it to, down to
    /// its page: a caller's offset is looked up a byte before its return address) and ends after
    /// its highest sampled address, file offset 0. Every frame has a function name
    /// (`StackFrame.functionName`), so pprof takes each mapping as symbolized and reads no file.
    private mutating func mapping(of frame: StackFrame, in path: String, hasFile: Bool, hasLine: Bool) -> UInt64 {
        let bias = frame.moduleOffset.flatMap { $0 <= frame.address ? frame.address - $0 : nil }
        let start = (bias ?? frame.address) & ~0xFFF
        let limit = frame.address == .max ? frame.address : frame.address + 1
        let key = ModuleKey(path: path, buildID: frame.buildID)
        if var module = modules[key] {
            module.start = min(module.start, start)
            module.limit = max(module.limit, limit)
            module.allFiles = module.allFiles && hasFile
            module.allLines = module.allLines && hasLine
            modules[key] = module
            return module.id
        }
        let id = UInt64(modules.count + 1)
        modules[key] = Module(id: id, start: start, limit: limit, allFiles: hasFile, allLines: hasLine)
        return id
    }

    /// The mappings, the main binary first as profile.proto asks ("mapping[0] will be the main
    /// binary"): the first module that is neither a shared library nor a `[vdso]`-like stand-in,
    /// as pprof itself guesses it. Ids from 1 in that order; the locations' ids follow.
    mutating func finishMappings() -> [PprofProfile.Mapping] {
        var order = modules.sorted { $0.value.id < $1.value.id }
        if let main = order.firstIndex(where: { !Self.isLibrary($0.key.path) }) {
            order.insert(order.remove(at: main), at: 0)
        }
        var newIDs: [UInt64: UInt64] = [:]
        let mappings = order.enumerated().map { index, entry in
            let (key, module) = entry
            newIDs[module.id] = UInt64(index + 1)
            return PprofProfile.Mapping(
                id: UInt64(index + 1), memoryStart: module.start, memoryLimit: module.limit, filename: key.path,
                buildID: key.buildID, hasFunctions: true, hasFilenames: module.allFiles,
                hasLineNumbers: module.allLines)
        }
        for index in locations.indices where locations[index].mappingID != 0 {
            locations[index].mappingID = newIDs[locations[index].mappingID]!
        }
        return mappings
    }

    /// `libc.so.6`, `libdispatch.so`, `[vdso]`: not a program's own binary.
    private static func isLibrary(_ path: String) -> Bool {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.hasPrefix("[") || name.hasSuffix(".so") || name.contains(".so.")
    }
}
