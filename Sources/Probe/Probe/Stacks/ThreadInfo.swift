// Syscall numbers differ by architecture (x86-64 has its own table, aarch64 the generic one); the C
// sampler reads either's registers. Another target is refused here rather than built to misread
// threads.
#if !(os(Linux) && (arch(x86_64) || arch(arm64)))
    #error("Probe supports Linux on x86-64 and arm64 only (see Sources/Probe/Probe/README.md)")
#endif

import CProbe
import PerfkitPlatform
import Foundation

/// What `/proc/self/task/<tid>/…` says about one thread of this process.
enum ThreadInfo {
    /// The one-letter scheduler state ("R", "S", "D", "T", "t", "Z", …) or "?" when unreadable.
    static func state(of tid: Int32) -> String {
        guard let text = read("/proc/self/task/\(tid)/stat") else { return "?" }
        // The command name is in parentheses and may contain spaces: the state follows the last ")".
        guard let close = text.lastIndex(of: ")") else { return "?" }
        let rest = text[text.index(after: close)...].drop(while: { $0 == " " })
        return rest.first.map { String($0) } ?? "?"
    }

    /// The first field of `/proc/self/task/<tid>/syscall`: the syscall number the thread is blocked
    /// in, "running", or nil. The whole line (number and arguments) identifies one wait.
    static func syscallLine(of tid: Int32) -> String? {
        read("/proc/self/task/\(tid)/syscall")?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Syscalls that fail with EINTR when a signal handler runs, whatever SA_RESTART says
    /// (signal(7), "interrupted by a signal handler"), by this architecture's number.
    static let interruptibleSleeps: [Int: String] = names(interruptibleSleepNames)

    /// Names of the system calls a thread of a service is commonly found waiting in, by this
    /// architecture's number (unknown numbers read "syscall N").
    static let syscallNames: [Int: String] = names(commonSyscallNames)

    private static let interruptibleSleepNames = [
        "poll", "select", "pause", "nanosleep", "rt_sigtimedwait", "rt_sigsuspend", "io_getevents", "semtimedop",
        "clock_nanosleep", "epoll_wait", "pselect6", "ppoll", "epoll_pwait", "epoll_pwait2",
    ]

    private static let commonSyscallNames = [
        "read", "write", "open", "close", "poll", "mmap", "munmap", "pread64", "pwrite64", "readv", "writev", "select",
        "sched_yield", "msync", "madvise", "pause", "nanosleep", "sendfile", "connect", "accept", "sendto", "recvfrom",
        "sendmsg", "recvmsg", "wait4", "fcntl", "flock", "fsync", "fdatasync", "truncate", "ftruncate", "rename",
        "renameat", "unlink", "unlinkat", "rt_sigtimedwait", "rt_sigsuspend", "sync", "futex", "io_getevents",
        "semtimedop", "clock_nanosleep", "epoll_wait", "waitid", "openat", "pselect6", "ppoll", "splice",
        "epoll_pwait", "fallocate", "accept4", "preadv", "pwritev", "recvmmsg", "syncfs", "sendmmsg", "getrandom",
        "copy_file_range", "io_uring_enter", "epoll_pwait2",
    ]

    /// The names this architecture has, by number: calls it lacks (aarch64 has no `epoll_wait`,
    /// `poll`, `open`…) are left out.
    private static func names(_ wanted: [String]) -> [Int: String] {
        var byNumber: [Int: String] = [:]
        for name in wanted { if let number = syscallNumbers[name] { byNumber[number] = name } }
        return byNumber
    }

    /// The numbers of the kernel whose `/proc` this process reads: this architecture's, except
    /// under a user-mode emulator, whose system calls the host kernel serves and reports.
    static let syscallNumbers: [String: Int] = kernelArchitecture == "x86_64" ? x86_64Numbers : genericNumbers

    /// The architecture of the kernel behind `/proc`, from `/proc/cpuinfo` (which an emulator
    /// passes through): "x86_64" or "aarch64".
    static let kernelArchitecture: String =
        CPUInfo.architecture(described: read("/proc/cpuinfo") ?? "") ?? CPUInfo.compiledArchitecture

    /// True under a user-mode emulator (qemu-user): `/proc` then describes the emulator's host
    /// threads, so their signal masks and the registers of blocked system calls are not ours.
    static let procDescribesAnotherArchitecture = kernelArchitecture != CPUInfo.compiledArchitecture

    /// arch/x86/entry/syscalls/syscall_64.tbl.
    private static let x86_64Numbers: [String: Int] = [
        "read": 0, "write": 1, "open": 2, "close": 3, "poll": 7, "mmap": 9, "munmap": 11, "pread64": 17,
        "pwrite64": 18, "readv": 19, "writev": 20, "select": 23, "sched_yield": 24, "msync": 26, "madvise": 28,
        "pause": 34, "nanosleep": 35, "sendfile": 40, "connect": 42, "accept": 43, "sendto": 44, "recvfrom": 45,
        "sendmsg": 46, "recvmsg": 47, "wait4": 61, "fcntl": 72, "flock": 73, "fsync": 74, "fdatasync": 75,
        "truncate": 76, "ftruncate": 77, "rename": 82, "unlink": 87, "rt_sigtimedwait": 128, "rt_sigsuspend": 130,
        "sync": 162, "futex": 202, "io_getevents": 208, "semtimedop": 220, "clock_nanosleep": 230,
        "epoll_wait": 232, "waitid": 247, "openat": 257, "unlinkat": 263, "renameat": 264, "pselect6": 270,
        "ppoll": 271, "splice": 275, "epoll_pwait": 281, "fallocate": 285, "accept4": 288, "preadv": 295,
        "pwritev": 296, "recvmmsg": 299, "syncfs": 306, "sendmmsg": 307, "getrandom": 318, "copy_file_range": 326,
        "io_uring_enter": 426, "epoll_pwait2": 441,
    ]

    /// include/uapi/asm-generic/unistd.h, which arm64 uses.
    private static let genericNumbers: [String: Int] = [
        "io_getevents": 4, "epoll_pwait": 22, "fcntl": 25, "flock": 32, "unlinkat": 35, "renameat": 38,
        "truncate": 45, "ftruncate": 46, "fallocate": 47, "openat": 56, "close": 57, "read": 63, "write": 64,
        "readv": 65, "writev": 66, "pread64": 67, "pwrite64": 68, "preadv": 69, "pwritev": 70, "sendfile": 71,
        "pselect6": 72, "ppoll": 73, "splice": 76, "sync": 81, "fsync": 82, "fdatasync": 83, "waitid": 95,
        "futex": 98, "nanosleep": 101, "clock_nanosleep": 115, "sched_yield": 124, "rt_sigsuspend": 133,
        "rt_sigtimedwait": 137, "semtimedop": 192, "accept": 202, "connect": 203, "sendto": 206, "recvfrom": 207,
        "sendmsg": 211, "recvmsg": 212, "munmap": 215, "mmap": 222, "msync": 227, "madvise": 233, "accept4": 242,
        "recvmmsg": 243, "wait4": 260, "syncfs": 267, "sendmmsg": 269, "getrandom": 278, "copy_file_range": 285,
        "io_uring_enter": 426, "epoll_pwait2": 441,
    ]

    /// The system call a `/proc/…/syscall` line shows the thread in: its name, or "syscall N" for
    /// one not in ``syscallNames``; nil for "running" or an unreadable line.
    static func syscallName(syscallLine: String) -> String? {
        guard let first = syscallLine.split(separator: " ").first, let number = Int(first), number >= 0 else {
            return nil
        }
        return syscallNames[number] ?? "syscall \(number)"
    }

    /// The syscall's name when a `/proc/…/syscall` line shows the thread asleep in one of
    /// ``interruptibleSleeps``.
    static func interruptibleSleep(syscallLine: String) -> String? {
        guard let first = syscallLine.split(separator: " ").first, let number = Int(first) else { return nil }
        return interruptibleSleeps[number]
    }

    /// True when the thread blocks `signal` (its `SigBlk` mask), so a sample request would only pend.
    static func blocks(signal: Int32, tid: Int32) -> Bool {
        // An emulator's mask is the host thread's, not ours: the answer's timeout decides instead.
        if procDescribesAnotherArchitecture { return false }
        return statusMask("SigBlk:", tid: tid).map { $0 & (UInt64(1) << UInt64(signal - 1)) != 0 } ?? false
    }

    /// True when `signal` is pending for thread `tid` (sent, not yet handled: it blocks it).
    static func hasPending(signal: Int32, tid: Int32) -> Bool {
        statusMask("SigPnd:", tid: tid).map { $0 & (UInt64(1) << UInt64(signal - 1)) != 0 } ?? false
    }

    /// A signal mask line (`SigBlk:`, `SigPnd:`) of the thread's `status`, nil when unreadable.
    private static func statusMask(_ field: String, tid: Int32) -> UInt64? {
        guard let text = read("/proc/self/task/\(tid)/status") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field) {
            return UInt64(line.dropFirst(field.count).trimmingCharacters(in: .whitespaces), radix: 16)
        }
        return nil
    }

    /// True while `tid` is a live thread of this process.
    static func exists(_ tid: Int32) -> Bool {
        access("/proc/self/task/\(tid)", F_OK) == 0
    }

    /// CPU time of the thread (user + system), ns, from its per-thread CPU clock.
    static func cpuNanoseconds(of tid: Int32) -> Int64? {
        let value = cprobe_thread_cpu_ns(tid)
        return value >= 0 ? value : nil
    }

    /// Reads a whole file with plain read(2) calls: /proc files report size 0, so readers that
    /// trust the size get nothing or a truncated first page.
    static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
