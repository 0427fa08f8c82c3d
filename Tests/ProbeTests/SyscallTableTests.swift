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

    /// The kernel's table: this architecture's, or the host's under a user-mode emulator (whose
    /// system calls the host kernel reports in `/proc`).
    @Test func eventLoopWaitsAreTheKernelsOwn() throws {
        if ThreadInfo.kernelArchitecture == "x86_64" {
            #expect(ThreadSyscallReader.epollWaits == [232, 281, 441])
            #expect(ThreadInfo.interruptibleSleep(syscallLine: "232 0x3") == "epoll_wait")
        } else {
            // The generic table: no epoll_wait, poll or select; epoll_pwait is 22.
            #expect(ThreadSyscallReader.epollWaits == [22, 441])
            #expect(ThreadInfo.syscallNumbers["epoll_wait"] == nil)
            #expect(ThreadInfo.interruptibleSleep(syscallLine: "22 0x3") == "epoll_pwait")
        }
        #if arch(x86_64)
            #expect(ThreadInfo.procDescribesAnotherArchitecture == (ThreadInfo.kernelArchitecture != "x86_64"))
        #else
            #expect(ThreadInfo.procDescribesAnotherArchitecture == (ThreadInfo.kernelArchitecture != "aarch64"))
        #endif
    }
}
