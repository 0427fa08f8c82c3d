#ifndef CPROBE_ASYNC_CHAINS_H
#define CPROBE_ASYNC_CHAINS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Marks a program counter of a stack as an async resume point: a logical caller read from the
/// async context chain, not a return address on the thread's stack (Swift's `[async]` frames). The
/// address itself is the resume function's entry: symbolicated as it is, not at `address - 1`.
/// No user-space code address has bit 63 set on x86-64 or aarch64.
#define CPROBE_ASYNC_FRAME ((uintptr_t)1 << 63)
/// CPROBE_ASYNC_FRAME for Swift, which does not import the macro's value.
static inline uintptr_t cprobe_async_frame_tag(void) { return CPROBE_ASYNC_FRAME; }

/// Most address ranges of async functions and of memory async contexts may live in.
#define CPROBE_MAX_ASYNC_RANGES 262144
#define CPROBE_MAX_CONTEXT_RANGES 4096

/// How a walk of an async context chain ended.
enum {
    /// At the task's root: a context whose caller is null.
    CPROBE_CHAIN_ROOT = 0,
    /// The output was full (deeper chains are cut, as stacks are).
    CPROBE_CHAIN_FULL = 1,
    /// A context pointer that cannot be read: null, misaligned, or unreadable (process_vm_readv
    /// answered EFAULT for memory outside the writable mappings known at the last refresh).
    CPROBE_CHAIN_BAD_CONTEXT = 2,
    /// A context whose resume function is not in async code: a corrupted or foreign chain.
    CPROBE_CHAIN_BAD_RESUME = 3,
};

/// Publishes the sorted, non-overlapping [start, end) pairs (`count` pairs in `ranges`) of the
/// functions that keep a Swift async context below their frame record. Called outside any signal
/// handler; replaced tables are never freed. Returns 0, or -1 for too many ranges.
int cprobe_set_async_functions(const uintptr_t *ranges, int count);
/// Publishes the sorted [start, end) pairs of the writable memory async contexts may live in (the
/// heap and anonymous mappings), as `/proc/self/maps` showed them. Returns 0 or -1.
int cprobe_set_context_memory(const uintptr_t *ranges, int count);
/// Replaced tables not freed yet (a handler was inside a walk when they were replaced): freed at the
/// next publish that finds no handler walking.
int cprobe_async_tables_held(void);
/// The calling thread's running Swift task (`swift_task_getCurrent`, a thread-local read: safe in a
/// signal handler), or 0 when none runs or the runtime's function is not known yet.
uintptr_t cprobe_current_task(void);
/// Turns the splicing of async chains into sampled stacks on (1) or off (0). `current_task` is the
/// runtime's `swift_task_getCurrent` (or NULL): a thread running no task has no async frame, so its
/// samples skip the search.
void cprobe_set_async_chains(int on, void *current_task);
/// True when `pc` lies in a published async function.
int cprobe_in_async_function(uintptr_t pc);

/// Follows the async context chain from `context` (the context an async frame keeps at FP-8): each
/// context's first word is its caller's context, its second the caller's resume function. Writes
/// up to `capacity` resume functions (untagged) to `out`; `*ended` receives a CPROBE_CHAIN_ value.
/// A context outside the published memory is read with process_vm_readv, never in place.
/// Async-signal-safe.
int cprobe_walk_async_chain(uintptr_t context, uintptr_t *out, int capacity, int *ended);

/// The stack of `depth` frames in `pcs`, with `fps[i]` the frame record of frame i (0 when not
/// known), gains the async chain of its outermost async frame, tagged CPROBE_ASYNC_FRAME and
/// inserted right after that frame; the thread's own outer frames follow as room allows. Returns the
/// new depth. Async-signal-safe.
int cprobe_splice_async_chain(uintptr_t *pcs, const uintptr_t *fps, int depth, int capacity);
/// Whether a walk of the calling thread's stack should keep frame records for a chain: chains are on
/// and the thread runs a task now (`swift_task_getCurrent`; a thread with no task has no async
/// frame, so its walk does no bookkeeping at all). Async-signal-safe.
int cprobe_async_chain_wanted(void);

/// What the walks found since the process started: chains followed, frames added, and chains cut
/// short by a context or resume function that failed its check.
typedef struct {
    uint64_t chains;
    uint64_t frames;
    uint64_t bad_contexts;
    uint64_t bad_resumes;
} cprobe_async_counts;
void cprobe_async_chain_counts(cprobe_async_counts *out);
/// True (and cleared) when a walk met a context outside the published memory since the last call:
/// the heap may have grown, so the memory table wants refreshing.
int cprobe_context_memory_stale(void);

#ifdef __cplusplus
}
#endif

#endif
