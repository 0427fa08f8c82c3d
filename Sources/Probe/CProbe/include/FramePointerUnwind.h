#ifndef CPROBE_FRAME_POINTER_UNWIND_H
#define CPROBE_FRAME_POINTER_UNWIND_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Most address ranges of frame-pointer code (executable mappings of modules whose functions
/// keep frame records).
#define CPROBE_MAX_FP_RANGES 256
/// Most frames a walk keeps frame records for (an async frame's chain starts at its record); deeper
/// walks get no async chain. As many as a sample holds: the records sit on the signal handler's stack
/// (1 KiB), which may be a thread's small alternate signal stack.
#define CPROBE_UNWIND_MAX_FRAMES 128
/// Outermost frames of a thread remembered when it is attached (start_thread, clone3, …).
#define CPROBE_TAIL_FRAMES 24

/// How a sample unwinds the interrupted thread.
enum {
    /// Frame records, with libunwind where they do not hold (see FramePointerUnwind.c).
    CPROBE_UNWIND_FRAME_POINTERS = 0,
    /// libunwind (DWARF unwind tables) for every frame.
    CPROBE_UNWIND_LIBUNWIND = 1,
    /// The interrupted instruction only: what the signal's round trip costs without any unwind.
    CPROBE_UNWIND_NONE = 2,
};

/// An executable mapping of a module whose code keeps frame records, with the module's function
/// index when there is one: `function_count` entries of three `uint32_t` each (start relative to
/// `function_base`, size, name offset), sorted by start. The index must stay readable and unchanged
/// for the life of the process.
typedef struct {
    uintptr_t start;
    uintptr_t end;
    uintptr_t function_base;
    const uint32_t *functions;
    int function_count;
} cprobe_code_range;

/// Publishes the executable address ranges whose code keeps frame records. Called outside any
/// signal handler; the previous table stays readable. Returns 0, or -1 for too many ranges.
int cprobe_set_frame_pointer_code(const cprobe_code_range *ranges, int count);
/// True when `pc` lies in a published frame-pointer range.
int cprobe_in_frame_pointer_code(uintptr_t pc);

/// How the interrupted frame at `pc` stands, decided from its function's first bytes alone:
/// CPROBE_FRAME_RECORD (rbp holds its frame record), CPROBE_FRAME_NO_RECORD with the return
/// address's offset from sp in `*return_offset` (rbp is still the caller's), or CPROBE_FRAME_UNKNOWN
/// (not a function that starts with `push %rbp; mov %rsp,%rbp`, or an instruction right after an
/// epilogue's `pop %rbp`/`leave`: libunwind decides). Async-signal-safe.
enum { CPROBE_FRAME_UNKNOWN = 0, CPROBE_FRAME_RECORD = 1, CPROBE_FRAME_NO_RECORD = 2 };
int cprobe_frame_from_code(uintptr_t pc, uintptr_t *return_offset);
/// The same question asked of libunwind (the function's DWARF unwind table), for a frame at `pc`
/// with made-up register values on a scratch stack. For tests: the two must agree.
int cprobe_frame_from_libunwind(uintptr_t pc, uintptr_t *return_offset);
/// While on, every sample checks the answer from code against libunwind's for its interrupted
/// frame (bypassing the cache) and counts agreements and disagreements. For tests.
void cprobe_set_frame_rule_check(int on);
void cprobe_frame_rule_check_counts(long *agreed, long *disagreed, uintptr_t *first_disagreement);

/// Records the calling thread's stack bounds and outermost frames, so the signal handler can
/// walk its frame records. Not async-signal-safe; called when a thread is prepared. Returns 0 or -1.
int cprobe_attach_thread(void);
/// True when the calling thread has been attached.
int cprobe_thread_attached(void);

/// Unwinds the interrupted context (a signal handler's `ucontext_t`) of the calling thread into
/// `pcs`, innermost first, with the async chain of a running task spliced in (AsyncChains.h).
/// Async-signal-safe. `libunwind_steps` (may be NULL) receives how many
/// frames needed libunwind. Returns the depth.
int cprobe_unwind_context(const void *context, int method, uintptr_t *pcs, int capacity, int *libunwind_steps);

/// Unwinds the calling thread from its caller's frame (a heap sampler inside `malloc`): return
/// addresses only, innermost first, with the async chain of a running task spliced in. Attaches
/// the thread first when it is not (bounds for every read). Not async-signal-safe the first time
/// on a thread (attaching); a walk never calls malloc. Returns the depth.
int cprobe_unwind_here(uintptr_t *pcs, int capacity);

/// True when `ret`, in frame-record code, follows a call instruction: a return address, not a stale
/// or made-up code pointer. Async-signal-safe.
int cprobe_return_follows_call(uintptr_t ret);

/// Unwinds a thread of this process that is blocked in a syscall, from the stack pointer and
/// program counter `/proc/self/task/TID/syscall` shows, without signalling it. [low, high) is the
/// stack mapping holding `sp`. Returns the depth (at least 1: the pc itself).
int cprobe_unwind_blocked(uintptr_t pc, uintptr_t sp, uintptr_t low, uintptr_t high, uintptr_t *pcs, int capacity);

#ifdef __cplusplus
}
#endif

#endif
