// The syscall numbers read from /proc below are x86-64's, and the C sampler reads x86-64 registers
// (FramePointerUnwind.c has the same guard): another architecture is refused at compile time rather
// than built to misread threads.
#if !(os(Linux) && arch(x86_64))
    #error("Probe supports Linux on x86-64 only (see Sources/Libraries/Probe/README.md)")
#endif

import CProbe
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
    /// (signal(7), "interrupted by a signal handler"), by x86_64 number.
    static let interruptibleSleeps: [Int: String] = [
        7: "poll", 23: "select", 34: "pause", 35: "nanosleep", 128: "rt_sigtimedwait", 130: "rt_sigsuspend",
        208: "io_getevents", 220: "semtimedop", 230: "clock_nanosleep", 232: "epoll_wait", 270: "pselect6",
        271: "ppoll", 281: "epoll_pwait", 441: "epoll_pwait2",
    ]

    /// Names of the x86_64 system calls a thread of a service is commonly found waiting in.
    static let syscallNames: [Int: String] = [
        0: "read", 1: "write", 2: "open", 3: "close", 7: "poll", 9: "mmap", 11: "munmap", 17: "pread64",
        18: "pwrite64", 19: "readv", 20: "writev", 23: "select", 24: "sched_yield", 26: "msync", 28: "madvise",
        34: "pause", 35: "nanosleep", 40: "sendfile", 42: "connect", 43: "accept", 44: "sendto", 45: "recvfrom",
        46: "sendmsg", 47: "recvmsg", 61: "wait4", 72: "fcntl", 73: "flock", 74: "fsync", 75: "fdatasync",
        76: "truncate", 77: "ftruncate", 82: "rename", 87: "unlink", 128: "rt_sigtimedwait", 130: "rt_sigsuspend",
        162: "sync", 202: "futex", 208: "io_getevents", 220: "semtimedop", 230: "clock_nanosleep",
        232: "epoll_wait", 247: "waitid", 257: "openat", 270: "pselect6", 271: "ppoll", 275: "splice",
        281: "epoll_pwait", 285: "fallocate", 288: "accept4", 295: "preadv", 296: "pwritev", 299: "recvmmsg",
        306: "syncfs", 307: "sendmmsg", 318: "getrandom", 326: "copy_file_range", 426: "io_uring_enter",
        441: "epoll_pwait2",
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
        guard let text = read("/proc/self/task/\(tid)/status") else { return false }
        for line in text.split(separator: "\n") where line.hasPrefix("SigBlk:") {
            let hex = line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces)
            guard let mask = UInt64(hex, radix: 16) else { return false }
            return mask & (UInt64(1) << UInt64(signal - 1)) != 0
        }
        return false
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
