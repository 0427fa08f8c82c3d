#ifndef CPROBE_TASK_LIST_H
#define CPROBE_TASK_LIST_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One Swift task found in this process's memory, its fields as the runtime (internal layout 1:
/// Swift 6.1 to 6.3) keeps them in `AsyncTask` on 64-bit Linux.
typedef struct {
    uintptr_t address;
    /// The task's id (`Id` at +36, its high half at +144).
    uint64_t id;
    /// `JobFlags` (+32): kind in the low byte (0: a task), priority in the next.
    uint32_t job_flags;
    /// `ActiveTaskStatus` flags (+96): running 0x800, enqueued 0x1000, complete 0x2000.
    uint32_t status;
    /// `ResumeTask` (+56): where the task goes on when it runs next (its await site, or an adapter).
    uintptr_t resume_function;
    /// `ResumeContext` (+64): that function's async context, whose chain leads to the task's root.
    uintptr_t resume_context;
    /// The dependency record (+160): set while the task waits on a task, continuation or group.
    uintptr_t dependency;
} cprobe_task;

enum {
    CPROBE_TASK_RUNNING = 0x800,
    CPROBE_TASK_ENQUEUED = 0x1000,
    CPROBE_TASK_COMPLETE = 0x2000,
};

/// Scans the sorted [start, end) `ranges` (writable memory: the heap, malloc's arenas) for live
/// tasks: 16-byte aligned objects whose first word is `task_metadata` (`*_swift_concurrency_debug_
/// asyncTaskMetadata`) and whose job kind, priority and status are a task's, complete ones left
/// out. Memory is read through process_vm_readv, 1 MiB at a time: memory unmapped meanwhile is
/// skipped, never faulted on. Fills at most `capacity` entries; returns how many were found (may be
/// more), or -1 when no buffer could be had. `*scanned` gets the bytes read.
int cprobe_find_tasks(
    const uintptr_t *ranges, int range_count, uintptr_t task_metadata, cprobe_task *out, int capacity,
    uint64_t *scanned);

/// A hash of the first `bytes` bytes of `context` and of up to `levels - 1` of its callers' contexts
/// (each context's first word): a suspended task whose fingerprint is the same at two looks did not
/// run in between, as far as its innermost frames show (a loop that suspends at one await keeps its
/// context but changes what it holds). Unreadable memory ends the hash there.
uint64_t cprobe_context_fingerprint(uintptr_t context, int levels, int bytes);

/// Reads `size` bytes at `address` of this process into `out` through process_vm_readv: 0, or -1
/// when they cannot be read (EFAULT instead of a fault).
int cprobe_read_memory(uintptr_t address, void *out, uintptr_t size);
/// 0 when cprobe_read_memory works in this process, else the errno of its first try (ENOSYS under
/// qemu-user, EPERM under a seccomp filter that forbids process_vm_readv). Tried once, then kept.
int cprobe_read_memory_errno(void);

#ifdef __cplusplus
}
#endif

#endif
