#ifndef CPROBE_H
#define CPROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#include "FramePointerUnwind.h"
#include "AsyncChains.h"
#include "TaskList.h"
#include "PoolJobs.h"
#include "Breadcrumb.h"
#include "ProfileSocket.h"
#include "CPUTimerSampling.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Most program counters one sample holds. Deeper stacks are truncated (outermost frames dropped).
#define CPROBE_MAX_FRAMES 128
/// Most watchdogs that can sample at the same time in one process.
#define CPROBE_MAX_SLOTS 32

/// SIGRTMIN as glibc defines it at run time (the macro is not importable into Swift).
int cprobe_sigrtmin(void);
int cprobe_sigrtmax(void);

/// The calling thread's kernel thread id.
pid_t cprobe_gettid(void);

/// Names the calling thread (the kernel keeps the first 15 bytes). Foundation on Linux ignores a
/// `Thread.name` set before `start()`, so Probe's threads name themselves. Returns 0 or an errno.
int cprobe_set_thread_name(const char *name);

/// Installs the sampling handler for `signo` (reference counted per signal number).
/// Returns 0, or an errno value.
int cprobe_install_handler(int signo);
/// Drops one reference; on the last one restores the handler that was there before, unless a
/// request is still outstanding (then the handler stays, passing foreign signals on). Returns 1
/// when the previous handler was restored.
int cprobe_uninstall_handler(int signo);
/// True when our handler is currently installed for `signo`.
int cprobe_handler_installed(int signo);
/// True when Probe installed its handler for `signo` and another has replaced it since (a
/// `sigaction` of the application's or another profiler's after Probe's).
int cprobe_handler_taken(int signo);

/// Claims a slot (preallocated sample storage). Returns the slot index or -1 when none is free.
int cprobe_slot_acquire(void);
void cprobe_slot_release(int slot);

/// Result of `cprobe_sample`.
enum {
    CPROBE_SAMPLE_OK = 0,
    /// The handler did not answer before the timeout.
    CPROBE_SAMPLE_NO_ANSWER = 1,
    /// Sending the signal failed (thread gone, …).
    CPROBE_SAMPLE_SEND_FAILED = 2,
    /// The slot is still being written by a handler from an earlier, timed-out request.
    CPROBE_SAMPLE_SLOT_BUSY = 3,
    /// Another handler replaced Probe's for the signal after Probe installed it: nothing was sent.
    CPROBE_SAMPLE_HANDLER_TAKEN = 4,
};

/// What one answered sample brought besides its program counters.
typedef struct {
    int depth;
    /// Frames the handler unwound with libunwind (all of them with CPROBE_UNWIND_LIBUNWIND).
    int libunwind_steps;
    /// Time in the handler, from entry to the answer (the signal's delivery is not included).
    uint64_t handler_ns;
    /// The Swift task the thread was running (`swift_task_getCurrent`), 0 for none.
    uintptr_t task;
} cprobe_sample_info;

/// Asks thread `tid` (of this process) for its stack by sending `signo` carrying the slot, the
/// unwind `method` (CPROBE_UNWIND_…) and a new generation number, and waits up to `timeout_ns`.
/// On success copies up to `capacity` program counters (innermost first, the first one is the
/// interrupted instruction) into `pcs` and fills `*sample`.
int cprobe_sample(int slot, int signo, pid_t tid, uint64_t timeout_ns, int method, uintptr_t *pcs, int capacity,
                  cprobe_sample_info *sample);

/// `cprobe_sample` in two halves, so that one thread can have requests out to several threads
/// at once (one slot each) and wait for their answers together: sends the request and stores
/// its number in `*request` (CPROBE_SAMPLE_OK), or fails as `cprobe_sample` does.
int cprobe_sample_send(int slot, int signo, pid_t tid, int method, uint64_t *request);
/// Waits up to `timeout_ns` for the answer to `request` on `slot`, as `cprobe_sample` does.
int cprobe_sample_collect(int slot, uint64_t request, uint64_t timeout_ns, uintptr_t *pcs, int capacity,
                          cprobe_sample_info *sample);

/// How many sample requests the calling thread's handler has answered: a thread can tell
/// whether it was signalled while it slept.
uint64_t cprobe_samples_answered_by_this_thread(void);

/// Unwinds the calling thread once, so that libunwind's lazy set-up (caches, TLS) happens on this
/// thread now and never for the first time inside the signal handler. Returns the depth seen.
int cprobe_prime_unwinder(void);

/// Unblocks `signo` on the calling thread (libdispatch worker threads, and threads they start,
/// block all asynchronous signals). Returns 0 or an errno value.
int cprobe_unblock_signal(int signo);

/// Primes libunwind, attaches the thread for frame-pointer walks (``cprobe_attach_thread``) and
/// unblocks `signo` on the calling thread, once per thread and signal.
/// Returns 1 when it did so now, 0 when the thread was already prepared, -1 for a bad signal.
int cprobe_prepare_thread(int signo);

/// Unwinds the calling thread into `pcs` (used by benchmarks to time the unwind itself).
int cprobe_unwind_self(uintptr_t *pcs, int capacity);
/// Unwinds the calling thread with `method` (CPROBE_UNWIND_…), exactly as the signal handler
/// would from an interrupted context here: times the walk alone, without the signal.
int cprobe_unwind_self_with(int method, uintptr_t *pcs, int capacity);

/// CPU time (user + system) of thread `tid` of this process in ns, or -1.
int64_t cprobe_thread_cpu_ns(pid_t tid);
/// CPU time of the calling thread in ns.
int64_t cprobe_self_thread_cpu_ns(void);
/// The thread ids listed by `task_fd` (an open `/proc/self/task` directory, read again from its
/// start): stores up to `capacity` in `tids` and returns how many there are (more than `capacity`
/// when `tids` was too small), or -1. Allocates nothing.
int cprobe_list_threads(int task_fd, pid_t *tids, int capacity);
/// For the tests of Probe's large blocks (docs/probe-in-a-server.md): the free bytes glibc's malloc
/// holds in its arenas, their tops included (mallinfo2's `fordblks`; 0 without glibc), and whether
/// it mapped `block` (from malloc) one of its own (false without glibc).
size_t cprobe_malloc_free_bytes(void);
bool cprobe_malloc_block_is_mapped(const void *block);
/// CLOCK_MONOTONIC and CLOCK_BOOTTIME in ns.
uint64_t cprobe_monotonic_ns(void);
uint64_t cprobe_boottime_ns(void);
/// How long the calling thread has waited, runnable, for a CPU since it began, in ns (run_delay,
/// the second field of /proc/thread-self/schedstat), or -1 when the kernel does not say. The file
/// stays open for the thread (one descriptor, closed when the thread ends): a read is one pread.
int64_t cprobe_thread_run_queue_wait_ns(void);

/// The Swift runtime's demangler (exported by libswiftCore). Returns a malloc'ed string or NULL.
char *swift_demangle(const char *mangledName, size_t mangledNameLength, char *outputBuffer,
                     size_t *outputBufferSize, uint32_t flags);

// MARK: libdispatch

/// The queue the calling block runs on (libdispatch's dispatch_get_current_queue), or NULL.
const void *cprobe_dispatch_current_queue(void);
/// The thread id recorded as the drain owner in a serial queue's state word, 0 when nobody
/// drains it. Reads libdispatch's private layout (swift-corelibs-libdispatch: `dq_state` at
/// byte 56, owner in the low 30 bits); callers validate it from inside the queue first.
pid_t cprobe_dispatch_drain_owner(const void *queue);

// MARK: startup marks

/// Records a startup mark: `name` must stay valid (a string literal or interned copy).
/// Lock-free, no allocation; returns 0, or -1 when the preallocated table is full.
int cprobe_startup_mark(const char *name);
/// Number of marks recorded so far.
int cprobe_startup_mark_count(void);
/// Reads mark `index`: its name and its CLOCK_BOOTTIME timestamp in ns. Returns 0 or -1.
int cprobe_startup_mark_at(int index, const char **name, uint64_t *boottime_ns);
/// Forgets every mark (benchmarks only: marks being written concurrently may be lost).
void cprobe_startup_reset(void);
/// CLOCK_BOOTTIME (ns) at which the C constructor ran (the "runtime-init" mark).
uint64_t cprobe_runtime_init_ns(void);

#ifdef __cplusplus
}
#endif

#endif
