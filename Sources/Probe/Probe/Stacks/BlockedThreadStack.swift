import CProbe

/// The stack of a thread blocked in a syscall, read without signalling it: a signal would end
/// a sleep early (EINTR) or at least wake the thread, changing what is being measured.
///
/// `/proc/self/task/TID/syscall` shows a blocked thread's stack pointer and program counter; the
/// libc frames from there are unwound with their DWARF tables and the rest by frame records
/// (`cprobe_unwind_blocked`). The thread's stack memory is read in place while it waits; a thread
/// that left its wait during the walk is noticed (its syscall line changed) and the result dropped.
/// Reads stay inside the stack's mapping as `/proc/self/maps` showed it a moment before; only a
/// thread that exits and has its stack unmapped within those microseconds could fault the read
/// (glibc keeps exited threads' stacks cached, up to 40 MiB, before it unmaps any).
enum BlockedThreadStack {
    /// The stack of `tid` while it stays in the wait `syscallLine` describes, or nil when the
    /// line shows no blocked syscall or the thread moved on.
    static func unwind(tid: Int32, syscallLine: String) -> [UInt]? {
        // Under an emulator the line holds the emulator's own registers, not the thread's.
        guard !ThreadInfo.procDescribesAnotherArchitecture, let (sp, pc) = stackPointerAndPC(syscallLine),
            let stack = Symbolicator.readMappings().first(where: { $0.start <= sp && sp < $0.end })
        else { return nil }
        var pcs = [UInt](repeating: 0, count: Int(CPROBE_MAX_FRAMES))
        let depth = pcs.withUnsafeMutableBufferPointer { buffer in
            cprobe_unwind_blocked(
                UInt(pc), UInt(sp), UInt(stack.start), UInt(stack.end), buffer.baseAddress, Int32(buffer.count))
        }
        guard depth > 1, ThreadInfo.syscallLine(of: tid) == syscallLine else { return nil }
        return Array(pcs.prefix(Int(depth)))
    }

    /// The last two fields of a syscall line: `NR ARG1 … ARG6 SP PC`, or `-1 SP PC` for a thread
    /// blocked outside a syscall. "running" has neither.
    static func stackPointerAndPC(_ syscallLine: String) -> (UInt64, UInt64)? {
        let fields = syscallLine.split(separator: " ")
        guard fields.count >= 3, let sp = hex(fields[fields.count - 2]), let pc = hex(fields[fields.count - 1]),
            sp != 0, pc != 0
        else { return nil }
        return (sp, pc)
    }

    private static func hex(_ field: Substring) -> UInt64? {
        field.hasPrefix("0x") ? UInt64(field.dropFirst(2), radix: 16) : nil
    }
}
