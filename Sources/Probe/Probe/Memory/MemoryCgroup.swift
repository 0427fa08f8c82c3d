import Foundation

/// The memory cgroup a process is in and what the kernel says of it, found from
/// `/proc/self/cgroup` and `/proc/self/mountinfo`: cgroup v2 (one hierarchy: `memory.current`,
/// `memory.max`, `memory.events`, `memory.pressure`) or cgroup v1's memory controller
/// (`memory.usage_in_bytes`, `memory.limit_in_bytes`, `memory.oom_control`). Most container hosts
/// are pure v2; some machines (this project's among them) keep memory on v1 with a v2 hierarchy
/// beside it, which still has per-cgroup pressure files.
///
/// Every path is read under `root` ("" for the real system), so tests point it at captured files.
struct MemoryCgroup: Sendable, Equatable {
    enum Version: String, Codable, Sendable { case v1, v2 }

    var version: Version
    /// The cgroup's directory (with `root` in front).
    var directory: String
    /// Where its hierarchy is mounted (with `root` in front): v2 limits are looked for up to it.
    var mountPoint: String

    /// What the kernel counts of the cgroup at one moment.
    struct Reading: Sendable, Equatable {
        /// Memory charged to the cgroup, bytes.
        var usageBytes: UInt64?
        /// The tightest limit on it (its own or an ancestor's), bytes; nil: none.
        var limitBytes: UInt64?
        /// v2's `memory.events` (`low`, `high`, `max`, `oom`, `oom_kill`, …); from v1, `max` (the
        /// failure count: charges that hit the limit) and `oom_kill`.
        var events: [String: UInt64]
    }

    /// What `find` learnt: the cgroup (nil without a memory controller), the PSI file for memory
    /// pressure, and what is missing, one sentence each.
    struct Discovery: Sendable, Equatable {
        var cgroup: MemoryCgroup?
        var pressureFile: String?
        var missing: [String]
    }

    /// A limit at or above this is "no limit" (v1 writes 9223372036854771712 for none).
    static let noLimit: UInt64 = 1 << 62

    static func find(root: String = "") -> Discovery {
        var missing: [String] = []
        let membership = ThreadInfo.read(root + "/proc/self/cgroup").map(parseMembership) ?? []
        let mounts = ThreadInfo.read(root + "/proc/self/mountinfo").map(parseMounts) ?? []
        if membership.isEmpty { missing.append("/proc/self/cgroup is unreadable: no cgroup") }

        func directory(of path: String, in mount: Mount) -> String {
            // Inside a cgroup namespace the mount's root is the cgroup itself and the path shows "/".
            var relative = path
            if mount.root != "/", relative.hasPrefix(mount.root) { relative.removeFirst(mount.root.count) }
            if !relative.hasPrefix("/") { relative = "/" + relative }
            return root + mount.point + (relative == "/" ? "" : relative)
        }

        var v2Directory: String?
        var v2Mount: Mount?
        if let v2Path = membership.first(where: { $0.hierarchy == 0 && $0.controllers.isEmpty })?.path,
            let mount = mounts.first(where: { $0.type == "cgroup2" })
        {
            v2Directory = directory(of: v2Path, in: mount)
            v2Mount = mount
        }

        var cgroup: MemoryCgroup?
        if let v2Directory, let v2Mount, FileManager.default.fileExists(atPath: v2Directory + "/memory.current") {
            cgroup = MemoryCgroup(version: .v2, directory: v2Directory, mountPoint: root + v2Mount.point)
        } else if let v1Path = membership.first(where: { $0.controllers.contains("memory") })?.path,
            let mount = mounts.first(where: { $0.type == "cgroup" && $0.superOptions.contains("memory") })
        {
            let v1Directory = directory(of: v1Path, in: mount)
            if FileManager.default.fileExists(atPath: v1Directory + "/memory.usage_in_bytes") {
                cgroup = MemoryCgroup(version: .v1, directory: v1Directory, mountPoint: root + mount.point)
            } else {
                missing.append(
                    "the v1 memory cgroup \(v1Directory) has no memory.usage_in_bytes: no cgroup usage or limit")
            }
        } else if v2Directory != nil {
            missing.append(
                "the process's cgroup v2 has no memory controller (no memory.current) and no v1 memory controller is mounted: no cgroup usage, limit or OOM-kill count"
            )
        } else {
            missing.append(
                "no memory cgroup (neither cgroup v2 with memory nor v1's memory controller): no cgroup usage, limit or OOM-kill count"
            )
        }

        // Pressure: the cgroup v2 directory's own file (present for every v2 cgroup when PSI is on,
        // memory controller or not), else the whole system's.
        var pressureFile: String?
        if let v2Directory, readablePressure(v2Directory + "/memory.pressure") {
            pressureFile = v2Directory + "/memory.pressure"
        } else if readablePressure(root + "/proc/pressure/memory") {
            pressureFile = root + "/proc/pressure/memory"
        } else {
            missing.append(
                "no memory pressure stall information (/proc/pressure/memory is missing or off: a kernel without CONFIG_PSI or booted with psi=0): no pressure warnings"
            )
        }
        return Discovery(cgroup: cgroup, pressureFile: pressureFile, missing: missing)
    }

    /// A kernel with PSI compiled in but switched off lists the files and fails reading them.
    private static func readablePressure(_ path: String) -> Bool {
        guard let text = ThreadInfo.read(path) else { return false }
        return PressureStall.parse(text) != nil
    }

    /// Reads the cgroup once, its files opened and closed (the watch keeps them: ``Reader``).
    func read() -> Reading {
        Reader(cgroup: self, files: KeptFiles()).read()
    }

    /// The cgroup's files kept open in a ``KeptFiles`` for a reading at every check: a `pread`
    /// each, parsed as bytes, and the last events dictionary kept while the counts stay the same.
    /// Used by one thread at a time, as its `KeptFiles`.
    final class Reader {
        let cgroup: MemoryCgroup
        private let files: KeptFiles
        /// memory.current (v2) or memory.usage_in_bytes (v1).
        private let usage: Int
        /// v2: memory.max of the cgroup and of each ancestor up to the mount point; v1:
        /// memory.limit_in_bytes (read when memory.stat has no hierarchical_memory_limit).
        private let limits: [Int]
        /// v1: memory.stat and memory.failcnt.
        private let stat: Int?
        private let failures: Int?
        /// memory.events (v2) or memory.oom_control (v1).
        private let events: Int
        private var lastEvents: [String: UInt64] = [:]
        /// v2: the memory.events bytes `lastEvents` was parsed from.
        private var lastEventBytes: [UInt8] = []

        init(cgroup: MemoryCgroup, files: KeptFiles) {
            self.cgroup = cgroup
            self.files = files
            let directory = cgroup.directory
            switch cgroup.version {
            case .v2:
                usage = files.add(directory + "/memory.current")
                var limits: [Int] = []
                // The tightest memory.max on the way up (the hierarchy's root has none).
                var current = directory
                while current.count >= cgroup.mountPoint.count {
                    limits.append(files.add(current + "/memory.max"))
                    guard current != cgroup.mountPoint, let slash = current.lastIndex(of: "/") else { break }
                    current = String(current[..<slash])
                }
                self.limits = limits
                (stat, failures) = (nil, nil)
                events = files.add(directory + "/memory.events")
            case .v1:
                usage = files.add(directory + "/memory.usage_in_bytes")
                // hierarchical_memory_limit counts the ancestors' limits too.
                stat = files.add(directory + "/memory.stat")
                limits = [files.add(directory + "/memory.limit_in_bytes")]
                failures = files.add(directory + "/memory.failcnt")
                events = files.add(directory + "/memory.oom_control")
            }
        }

        func read() -> Reading {
            let usageBytes = number(usage)
            switch cgroup.version {
            case .v2:
                var limit: UInt64?
                for file in limits {
                    if let max = number(file), max < MemoryCgroup.noLimit { limit = Swift.min(limit ?? max, max) }
                }
                return Reading(usageBytes: usageBytes, limitBytes: limit, events: keyedEvents())
            case .v1:
                let hierarchical = stat.flatMap { stat in
                    files.read(stat) { MemoryCgroup.lastCount(of: "hierarchical_memory_limit", in: $0) } ?? nil
                }
                let limit = hierarchical ?? number(limits[0])
                let failed = failures.flatMap { number($0) }
                let kills = files.read(events) { MemoryCgroup.lastCount(of: "oom_kill", in: $0) } ?? nil
                // The same counts as last time: the same dictionary, none made.
                let count = (failed == nil ? 0 : 1) + (kills == nil ? 0 : 1)
                if lastEvents.count != count || lastEvents["max"] != failed || lastEvents["oom_kill"] != kills {
                    var events: [String: UInt64] = [:]
                    if let failed { events["max"] = failed }
                    if let kills { events["oom_kill"] = kills }
                    lastEvents = events
                }
                return Reading(
                    usageBytes: usageBytes, limitBytes: limit.flatMap { $0 < MemoryCgroup.noLimit ? $0 : nil },
                    events: lastEvents)
            }
        }

        private func number(_ file: Int) -> UInt64? {
            files.read(file, MemoryCgroup.number) ?? nil
        }

        /// memory.events as a dictionary, parsed only when its bytes differ from the last ones.
        private func keyedEvents() -> [String: UInt64] {
            let same = files.read(events) { bytes -> Bool in
                if bytes.elementsEqual(lastEventBytes) { return true }
                lastEventBytes.removeAll(keepingCapacity: true)
                lastEventBytes.append(contentsOf: bytes)
                lastEvents = MemoryCgroup.keyedCounts(in: bytes)
                return false
            }
            if same == nil {
                lastEventBytes.removeAll(keepingCapacity: true)
                lastEvents = [:]
            }
            return lastEvents
        }
    }

    /// The OOM kills the cgroup in `directory` has counted, or nil when unreadable (it is gone).
    static func oomKills(version: Version, directory: String) -> UInt64? {
        switch version {
        case .v2: return ThreadInfo.read(directory + "/memory.events").map(parseKeyedCounts)?["oom_kill"]
        case .v1: return ThreadInfo.read(directory + "/memory.oom_control").map(parseKeyedCounts)?["oom_kill"]
        }
    }

    /// A file holding one number, or `max` (v2's "no limit", read as `UInt64.max`), white space around.
    static func number(in bytes: UnsafeRawBufferPointer) -> UInt64? {
        let trimmed = ByteText.trimmed(bytes)
        return ByteText.equals(trimmed, "max") ? UInt64.max : ByteText.decimal(trimmed)
    }

    /// "key value" lines (memory.events, memory.stat, memory.oom_control).
    static func parseKeyedCounts(_ text: String) -> [String: UInt64] {
        var text = text
        return text.withUTF8 { keyedCounts(in: UnsafeRawBufferPointer($0)) }
    }

    /// The "key value" lines of `bytes` whose value is a number (a later line of a key wins).
    static func keyedCounts(in bytes: UnsafeRawBufferPointer) -> [String: UInt64] {
        var counts: [String: UInt64] = [:]
        ByteText.forEachLine(in: bytes) { line in
            if let (key, value) = ByteText.pair(line), let number = ByteText.decimal(value) {
                counts[String(decoding: key, as: UTF8.self)] = number
            }
        }
        return counts
    }

    /// The count of `key` in the "key value" lines of `bytes`, as ``keyedCounts(in:)`` has it.
    static func lastCount(of key: StaticString, in bytes: UnsafeRawBufferPointer) -> UInt64? {
        var count: UInt64?
        ByteText.forEachLine(in: bytes) { line in
            if let (name, value) = ByteText.pair(line), ByteText.equals(name, key), let number = ByteText.decimal(value)
            {
                count = number
            }
        }
        return count
    }

    /// One line of /proc/self/cgroup: `hierarchy-id:controllers:path`.
    struct Membership: Equatable {
        var hierarchy: Int
        var controllers: [String]
        var path: String
    }

    static func parseMembership(_ text: String) -> [Membership] {
        text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, let hierarchy = Int(parts[0]) else { return nil }
            let controllers = parts[1].split(separator: ",").map(String.init)
            return Membership(hierarchy: hierarchy, controllers: controllers, path: String(parts[2]))
        }
    }

    /// The cgroup mounts of /proc/self/mountinfo: `id parent dev root point options… - type source superoptions`.
    struct Mount: Equatable {
        var root: String
        var point: String
        var type: String
        var superOptions: [String]
    }

    static func parseMounts(_ text: String) -> [Mount] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            guard let dash = fields.firstIndex(of: "-"), dash >= 5, fields.count >= dash + 3 else { return nil }
            let type = fields[dash + 1]
            guard type == "cgroup" || type == "cgroup2" else { return nil }
            return Mount(
                root: unescape(fields[3]), point: unescape(fields[4]), type: type,
                superOptions: fields[dash + 3].split(separator: ",").map(String.init))
        }
    }

    /// mountinfo writes a space, tab, newline and backslash in a path as an octal escape (`\040`).
    private static func unescape(_ field: String) -> String {
        guard field.contains("\\") else { return field }
        var result = ""
        var characters = Substring(field)
        while let first = characters.first {
            if first == "\\", characters.count >= 4, let code = UInt8(characters.dropFirst().prefix(3), radix: 8) {
                result.append(Character(UnicodeScalar(code)))
                characters = characters.dropFirst(4)
            } else {
                result.append(first)
                characters = characters.dropFirst()
            }
        }
        return result
    }
}
