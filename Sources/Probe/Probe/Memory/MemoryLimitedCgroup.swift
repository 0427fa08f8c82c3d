import Foundation

/// A memory cgroup with a limit, made for a child process and removed afterwards: for `perfkit
/// memory-demo` and the tests (not part of Probe's API). v1's memory controller where it is
/// mounted, with a v2 cgroup of the same name beside it when a v2 hierarchy is (its pressure file
/// is then the child's own); else a child of the v2 hierarchy's root with `memory.max`. Needs root.
package struct MemoryLimitedCgroup: Sendable {
    package var directories: [String]
    package var memoryDirectory: String
    package var version: String

    static let v1Root = "/sys/fs/cgroup/memory"
    static var v2Root: String? {
        ["/sys/fs/cgroup/unified", "/sys/fs/cgroup"].first {
            FileManager.default.fileExists(atPath: $0 + "/cgroup.subtree_control")
        }
    }

    /// Why no such cgroup can be made here, or nil when one can.
    package static var unavailable: String? {
        if getuid() != 0 { return "making a memory cgroup needs root (this is uid \(getuid()))" }
        if FileManager.default.fileExists(atPath: v1Root + "/memory.limit_in_bytes") { return nil }
        guard let v2Root else { return "no cgroup hierarchy is mounted under /sys/fs/cgroup" }
        let control = (try? String(contentsOfFile: v2Root + "/cgroup.subtree_control", encoding: .utf8)) ?? ""
        if !control.split(separator: " ").contains(where: {
            $0.trimmingCharacters(in: .whitespacesAndNewlines) == "memory"
        }) {
            return "the memory controller is enabled neither in v1 nor in \(v2Root)/cgroup.subtree_control"
        }
        return nil
    }

    package init(name: String, limitBytes: UInt64) throws {
        let manager = FileManager.default
        if manager.fileExists(atPath: Self.v1Root + "/memory.limit_in_bytes") {
            memoryDirectory = Self.v1Root + "/" + name
            version = "v1"
            try manager.createDirectory(atPath: memoryDirectory, withIntermediateDirectories: false)
            directories = [memoryDirectory]
            try "\(limitBytes)".write(
                toFile: memoryDirectory + "/memory.limit_in_bytes", atomically: false, encoding: .utf8)
            if let v2Root = Self.v2Root {
                let beside = v2Root + "/" + name
                try manager.createDirectory(atPath: beside, withIntermediateDirectories: false)
                directories.append(beside)
            }
        } else if let v2Root = Self.v2Root {
            memoryDirectory = v2Root + "/" + name
            version = "v2"
            try manager.createDirectory(atPath: memoryDirectory, withIntermediateDirectories: false)
            directories = [memoryDirectory]
            try "\(limitBytes)".write(toFile: memoryDirectory + "/memory.max", atomically: false, encoding: .utf8)
        } else {
            throw MemoryWatchError(kind: .fileUnusable, message: "no cgroup hierarchy is mounted under /sys/fs/cgroup")
        }
    }

    /// A shell command that moves the shell into every directory of this cgroup: `sh -c "<join> &&
    /// exec program …"` starts a program whose every allocation is charged here.
    package var joinCommand: String { directories.map { "echo $$ > '\($0)/cgroup.procs'" }.joined(separator: " && ") }

    package var oomKills: UInt64? {
        MemoryCgroup.oomKills(version: version == "v1" ? .v1 : .v2, directory: memoryDirectory)
    }

    /// Removes the directories once their processes are gone (a killed one may take a moment).
    package func remove() {
        for directory in directories {
            for _ in 0..<100 where rmdir(directory) != 0 { usleep(20_000) }
        }
    }
}
