import CProbe
import Foundation

/// This instance's breadcrumb file (`cprobe_breadcrumb`, 512 bytes), mapped shared: an update is a
/// few stores into the page cache, which outlives the process however it dies. The file is locked
/// (flock) while an instance keeps it, so two instances never write one record.
///
/// Owned by the memory watch's thread after `open`; the crash handler only sets `fatal_signal`.
@_spi(Benchmarks) public final class Breadcrumb {
    let path: String
    private let fd: Int32
    let record: UnsafeMutablePointer<cprobe_breadcrumb>

    static let size = MemoryLayout<cprobe_breadcrumb>.size

    private init(path: String, fd: Int32, record: UnsafeMutablePointer<cprobe_breadcrumb>) {
        self.path = path
        self.fd = fd
        self.record = record
    }

    /// Locks `path` for this instance, reads what the previous one left (nil for a new or empty
    /// file) and starts this instance's record in its place.
    /// For the benchmark: a breadcrumb at `path` as a watch outside any cgroup keeps it.
    @_spi(Benchmarks) public static func open(path: String) throws -> Breadcrumb {
        try open(path: path, bootID: bootID(root: ""), cgroup: nil).0
    }

    static func open(path: String, bootID: String?, cgroup: MemoryCgroup?) throws -> (Breadcrumb, cprobe_breadcrumb?) {
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw MemoryWatchError.file(path, "open the breadcrumb", errno: errno) }
        var keep = false
        defer { if !keep { Glibc.close(fd) } }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let error = errno
            let owner = (try? read(fd: fd, path: path)).flatMap { $0 }.map { " (pid \($0.pid))" } ?? ""
            throw MemoryWatchError(
                kind: .breadcrumbInUse,
                message:
                    "\(path): the breadcrumb is kept by another running instance\(owner): give each instance a file of its own",
                path: path, errorNumber: error)
        }
        let previous = try read(fd: fd, path: path)
        guard ftruncate(fd, off_t(size)) == 0 else {
            throw MemoryWatchError.file(path, "size the breadcrumb", errno: errno)
        }
        guard let mapping = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mapping != MAP_FAILED else {
            throw MemoryWatchError.file(path, "map the breadcrumb", errno: errno)
        }
        let record = mapping.bindMemory(to: cprobe_breadcrumb.self, capacity: 1)
        var fresh = cprobe_breadcrumb()
        fresh.magic = CPROBE_BREADCRUMB_MAGIC
        fresh.version = UInt32(CPROBE_BREADCRUMB_VERSION)
        fresh.pid = getpid()
        fresh.start_realtime_ns = realtimeNanoseconds()
        fresh.heartbeat_realtime_ns = fresh.start_realtime_ns
        fresh.cgroup_oom_kills = UInt64.max
        record.pointee = fresh
        let crumb = Breadcrumb(path: path, fd: fd, record: record)
        crumb.setText(\.boot_id, bootID ?? "")
        if let cgroup {
            record.pointee.cgroup_version = cgroup.version == .v1 ? 1 : 2
            crumb.setText(\.cgroup_directory, cgroup.directory)
        }
        keep = true
        return (crumb, previous)
    }

    /// What `path` holds, without taking it: nil when it does not exist or is empty.
    static func read(path: String) throws -> cprobe_breadcrumb? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0, errno == ENOENT { return nil }
        guard fd >= 0 else { throw MemoryWatchError.file(path, "open the breadcrumb", errno: errno) }
        defer { Glibc.close(fd) }
        // A running instance holds the lock: its record is not an ending.
        guard flock(fd, LOCK_SH | LOCK_NB) == 0 else {
            let owner = (try? read(fd: fd, path: path)).flatMap { $0 }.map { " (pid \($0.pid))" } ?? ""
            throw MemoryWatchError(
                kind: .breadcrumbInUse, message: "\(path): kept by a running instance\(owner): it has not ended",
                path: path, errorNumber: errno)
        }
        return try read(fd: fd, path: path)
    }

    private static func read(fd: Int32, path: String) throws -> cprobe_breadcrumb? {
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw MemoryWatchError.file(path, "read the breadcrumb", errno: errno) }
        if status.st_size == 0 { return nil }
        var record = cprobe_breadcrumb()
        let count = withUnsafeMutableBytes(of: &record) { pread(fd, $0.baseAddress, size, 0) }
        guard count == size, status.st_size == size, record.magic == CPROBE_BREADCRUMB_MAGIC else {
            throw MemoryWatchError(
                kind: .notABreadcrumb,
                message:
                    "\(path): not a Probe breadcrumb (\(status.st_size) bytes, no breadcrumb header); not overwritten: remove it or name another file",
                path: path)
        }
        guard record.version == UInt32(CPROBE_BREADCRUMB_VERSION) else {
            throw MemoryWatchError(
                kind: .notABreadcrumb,
                message:
                    "\(path): a breadcrumb of another version (\(record.version), this Probe writes \(CPROBE_BREADCRUMB_VERSION)); not overwritten: remove it to start afresh",
                path: path)
        }
        return record
    }

    /// The latest figures, in place: the sequence is odd while they are being written. No allocation.
    @_spi(Benchmarks) public func update(
        _ memory: MemorySnapshot, oomKills: UInt64?, someAvg10: Double?, phase: UnsafePointer<CChar>?
    ) {
        let r = record
        r.pointee.sequence &+= 1
        r.pointee.heartbeat_realtime_ns = Self.realtimeNanoseconds()
        r.pointee.rss_anon_bytes = memory.rssAnonBytes ?? 0
        r.pointee.rss_file_bytes = memory.rssFileBytes ?? 0
        r.pointee.cgroup_usage_bytes = memory.usageBytes ?? 0
        r.pointee.cgroup_limit_bytes = memory.limitBytes ?? 0
        r.pointee.cgroup_oom_kills = oomKills ?? UInt64.max
        r.pointee.some_avg10 = someAvg10 ?? -1
        if let phase { setText(\.last_phase, phase) }
        r.pointee.sequence &+= 1
    }

    func noteWarning(_ reason: MemoryWarning.Reason, someAvg10: Double?) {
        record.pointee.last_warning_realtime_ns = Self.realtimeNanoseconds()
        record.pointee.last_warning_some_avg10 = someAvg10 ?? -1
        setText(\.last_warning_reason, reason.rawValue)
    }

    /// Marks a graceful end, then gives the file up (the mapping, the lock).
    @_spi(Benchmarks) public func close(clean: Bool) {
        if clean { record.pointee.clean_exit = 1 }
        munmap(UnsafeMutableRawPointer(record), Self.size)
        Glibc.close(fd)
    }

    private func setText<T>(_ field: WritableKeyPath<cprobe_breadcrumb, T>, _ text: UnsafePointer<CChar>) {
        let offset = MemoryLayout<cprobe_breadcrumb>.offset(of: field)!
        let target = (UnsafeMutableRawPointer(record) + offset).assumingMemoryBound(to: CChar.self)
        cprobe_copy_field(target, MemoryLayout<T>.size, text)
    }

    private func setText<T>(_ field: WritableKeyPath<cprobe_breadcrumb, T>, _ text: String) {
        text.withCString { setText(field, $0) }
    }

    /// A fixed text field's contents, up to its first NUL.
    static func text<T>(_ value: T) -> String {
        withUnsafeBytes(of: value) { bytes in
            let end = bytes.firstIndex(of: 0) ?? bytes.count
            return String(decoding: bytes[..<end], as: UTF8.self)
        }
    }

    static func realtimeNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// /proc/sys/kernel/random/boot_id: a new value every boot.
    static func bootID(root: String) -> String? {
        ThreadInfo.read(root + "/proc/sys/kernel/random/boot_id")?.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
