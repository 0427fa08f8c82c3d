import Testing

@testable import Probe

/// The system calls a `/proc/…/syscall` line names, by this architecture's numbers.
@Suite struct SyscallTableTests {
    @Test func commonWaitsAreNamedByThisArchitecturesNumbers() throws {
        for name in ["futex", "read", "epoll_pwait", "clock_nanosleep", "ppoll", "accept4"] {
            let number = try #require(ThreadInfo.syscallNumbers[name], "\(name) has no number")
            #expect(ThreadInfo.syscallName(syscallLine: "\(number) 0x7f 0x80 0x0 0x0 0x0 0x0 0x7ffd 0x7f12") == name)
        }
        #expect(ThreadInfo.syscallName(syscallLine: "running") == nil)
        #expect(ThreadInfo.syscallName(syscallLine: "9999 0x0") == "syscall 9999")
    }

    @Test func eventLoopWaitsAreTheArchitecturesOwn() throws {
        #if arch(x86_64)
            #expect(ThreadSyscallReader.epollWaits == [232, 281, 441])
            #expect(ThreadInfo.interruptibleSleep(syscallLine: "232 0x3") == "epoll_wait")
        #elseif arch(arm64)
            // The generic table: no epoll_wait, poll or select; epoll_pwait is 22.
            #expect(ThreadSyscallReader.epollWaits == [22, 441])
            #expect(ThreadInfo.syscallNumbers["epoll_wait"] == nil)
            #expect(ThreadInfo.interruptibleSleep(syscallLine: "22 0x3") == "epoll_pwait")
        #endif
    }
}
