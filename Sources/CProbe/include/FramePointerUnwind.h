#ifndef CPROBE_FRAME_POINTER_UNWIND_H
#define CPROBE_FRAME_POINTER_UNWIND_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Most address ranges of frame-pointer code (executable mappings of modules whose functions
/// keep frame records).
#define CPROBE_MAX_FP_RANGES 256
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

/// Publishes the executable address ranges whose code keeps frame records. Called outside any
/// signal handler; the previous table stays readable. Returns 0, or -1 for too many ranges.
int cprobe_set_frame_pointer_ranges(const uintptr_t *starts, const uintptr_t *ends, int count);
/// True when `pc` lies in a published frame-pointer range.
int cprobe_in_frame_pointer_code(uintptr_t pc);

/// Records the calling thread's stack bounds and outermost frames, so the signal handler can
/// walk its frame records. Not async-signal-safe; called when a thread is prepared. Returns 0 or -1.
int cprobe_attach_thread(void);
/// True when the calling thread has been attached.
int cprobe_thread_attached(void);

/// Unwinds the interrupted context (a signal handler's `ucontext_t`) of the calling thread into
/// `pcs`, innermost first. Async-signal-safe. `libunwind_steps` (may be NULL) receives how many
/// frames needed libunwind. Returns the depth.
int cprobe_unwind_context(const void *context, int method, uintptr_t *pcs, int capacity, int *libunwind_steps);

/// Unwinds a thread of this process that is blocked in a syscall, from the stack pointer and
/// program counter `/proc/self/task/TID/syscall` shows, without signalling it. [low, high) is the
/// stack mapping holding `sp`. Returns the depth (at least 1: the pc itself).
int cprobe_unwind_blocked(uintptr_t pc, uintptr_t sp, uintptr_t low, uintptr_t high, uintptr_t *pcs, int capacity);

#ifdef __cplusplus
}
#endif

#endif
