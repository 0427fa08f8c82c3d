import Foundation
import ProbeRecords

/// Heap profiles a memory watch writes when memory runs short
/// (``MemoryWatchConfiguration/heapProfileDirectory``), and the one the next instance names in its
/// ``PreviousExit``: `heap-<pid>-<UTC time>.pb.gz`, gzipped pprof, each written whole or not at all.
enum MemoryHeapProfiles {
    static let prefix = "heap-"
    static let suffix = ".pb.gz"

    /// Where a profile taken now goes in `directory`, or why none can be taken (no heap profiler runs).
    static func plannedPath(directory: String, pid: Int32 = getpid(), now: Date = Date()) -> Result<
        String, ProfileProblem
    > {
        guard HeapProfiles.running != nil else {
            return .failure(.init("no heap profiler runs (ProbeHeap's HeapProfiler.start())"))
        }
        return .success(directory + "/" + name(pid: pid, time: now))
    }

    /// Writes the running heap profiler's profile to `path` (in `directory`, from ``plannedPath``),
    /// whole or not at all, and keeps the newest `kept` heap profiles there; or says why it did not.
    static func write(to path: String, directory: String, kept: Int, maxBytes: Int) -> Result<Void, ProfileProblem> {
        guard let heap = HeapProfiles.running else {
            return .failure(.init("no heap profiler runs (ProbeHeap's HeapProfiler.start())"))
        }
        let data = StoredGzip.gzip(heap.heapProfile(allocations: false))
        guard data.count <= maxBytes else {
            return .failure(.init("the heap profile is \(data.count) bytes, over heapProfileMaxBytes \(maxBytes)"))
        }
        do {
            try AtomicFile.write(data, to: URL(fileURLWithPath: path))
        } catch {
            return .failure(.init("\(error)"))
        }
        prune(directory: directory, kept: kept)
        return .success(())
    }

    struct ProfileProblem: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// `heap-4711-20261128T175236.763Z.pb.gz`: the pid first, so an instance's files sort together
    /// and by time.
    static func name(pid: Int32, time: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss.SSS'Z'"
        return "\(prefix)\(pid)-\(formatter.string(from: time))\(suffix)"
    }

    /// The newest heap profile instance `pid` wrote in `directory` since `started` (pids are reused).
    static func latest(directory: String, pid: Int32, since started: Date) -> String? {
        profiles(in: directory).filter { $0.name.hasPrefix("\(prefix)\(pid)-") && $0.modified >= started }
            .max { $0.modified < $1.modified }.map { directory + "/" + $0.name }
    }

    private static func profiles(in directory: String) -> [(name: String, modified: Date)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(suffix) }.compactMap { name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)
            return (attributes?[.modificationDate] as? Date).map { (name, $0) }
        }
    }

    private static func prune(directory: String, kept: Int) {
        let all = profiles(in: directory).sorted { $0.modified > $1.modified }
        for old in all.dropFirst(max(kept, 1)) {
            try? FileManager.default.removeItem(atPath: directory + "/" + old.name)
        }
    }
}
