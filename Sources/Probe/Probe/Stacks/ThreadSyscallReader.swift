import Foundation

/// Reads which system call one thread is in, through a `/proc/self/task/<tid>/syscall` descriptor
/// kept open: one `pread` a look instead of open, read and close. Owned by one watchdog thread.
final class ThreadSyscallReader {
    private var thread: Int32 = 0
    private var fd: Int32 = -1
    private var buffer = [UInt8](repeating: 0, count: 32)

    deinit { if fd >= 0 { close(fd) } }

    /// The syscall number `thread` is blocked in, or nil while it runs (or cannot be read).
    func syscallNumber(of thread: Int32) -> Int? {
        if thread != self.thread {
            if fd >= 0 { close(fd) }
            fd = open("/proc/self/task/\(thread)/syscall", O_RDONLY | O_CLOEXEC)
            self.thread = thread
        }
        guard fd >= 0 else { return nil }
        // The file is generated anew on each read from offset 0.
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, $0.count, 0) }
        guard count > 0 else { return nil }
        var number = 0
        var digits = 0
        for byte in buffer[..<count] {
            guard byte >= 0x30, byte <= 0x39 else { break }
            number = number * 10 + Int(byte - 0x30)
            digits += 1
        }
        return digits > 0 ? number : nil
    }

    /// The thread's CPU time when it was last found in an epoll wait.
    private var cpuWhenFoundWaiting: Int64?

    /// True when `thread` is blocked in `epoll_wait`, `epoll_pwait` or `epoll_pwait2`: an event
    /// loop waiting for work. A thread whose CPU time has not moved since it was last found in
    /// that wait is still in it (leaving a system call takes CPU time): one clock read (~1 µs)
    /// answers then instead of the `/proc` read (8–13 µs at an idle server's looks here).
    func isInEpollWait(_ thread: Int32) -> Bool {
        let cpu = ThreadInfo.cpuNanoseconds(of: thread)
        if let cpu, thread == self.thread, cpu == cpuWhenFoundWaiting { return true }
        guard let number = syscallNumber(of: thread), Self.epollWaits.contains(number) else {
            cpuWhenFoundWaiting = nil
            return false
        }
        // Read after the syscall: had the thread run in between, the next look reads /proc again.
        cpuWhenFoundWaiting = ThreadInfo.cpuNanoseconds(of: thread) == cpu ? cpu : nil
        return true
    }

    /// The numbers of epoll_wait, epoll_pwait and epoll_pwait2 on this architecture (arm64 has no
    /// epoll_wait).
    static let epollWaits = Set(
        ["epoll_wait", "epoll_pwait", "epoll_pwait2"].compactMap { ThreadInfo.syscallNumbers[$0] })
}
