#ifndef CPROBE_CPU_TIMER_SAMPLING_H
#define CPROBE_CPU_TIMER_SAMPLING_H

#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Most timer sets live at once (a profile and the flight recorder each hold one).
#define CPROBE_TIMER_SETS 4
/// Samples a set's ring holds between two drains (each about 1 KiB, allocated once per set).
#define CPROBE_TIMER_RING 1024
/// Most frames a timer sample keeps (deeper stacks lose their outermost frames).
#define CPROBE_TIMER_FRAMES 128
/// Most threads one set can arm (the thread index travels in the signal's value).
#define CPROBE_TIMER_THREADS (1 << 20)

/// One sample a thread's CPU timer took of that thread, from the signal handler.
typedef struct {
    /// The index the set's owner gave the thread when it armed its timer.
    int32_t thread;
    int32_t depth;
    /// The timer's expirations this sample stands for: 1 plus the overruns the kernel counted.
    uint32_t expirations;
    int32_t libunwind_steps;
    /// CLOCK_MONOTONIC at the handler, ns.
    uint64_t time_ns;
    uintptr_t pcs[CPROBE_TIMER_FRAMES];
} cprobe_timer_sample;

/// Claims a set and its ring (allocated on first use). Returns the set index, or -1 when every
/// set is taken or the ring cannot be allocated.
int cprobe_timer_set_acquire(void);
/// Releases a set whose timers are all deleted: samples still in flight are dropped.
void cprobe_timer_set_release(int set);

/// Creates a timer on thread `tid`'s CPU clock (CLOCK_THREAD_CPUTIME_ID of that thread) that
/// sends `signo` to that thread every `interval_ns` of its CPU time; the sample it takes goes to
/// `set`'s ring under `thread`. Returns 0 and the kernel's timer id (0 or more) in `*timer`, or an
/// errno value.
int cprobe_timer_arm(int set, int signo, pid_t tid, int32_t thread, uint64_t interval_ns, int *timer);
/// Deletes a timer from `cprobe_timer_arm`. Returns 0 or an errno value.
int cprobe_timer_disarm(int timer);

/// Moves up to `capacity` finished samples out of `set`'s ring into `out`, oldest first.
/// One drainer per set. Returns how many.
int cprobe_timer_drain(int set, cprobe_timer_sample *out, int capacity);
/// Samples `set` lost to a full ring, and the expirations they stood for, since it was acquired.
void cprobe_timer_dropped(int set, uint64_t *samples, uint64_t *expirations);

/// Sends the calling thread the signal `set`'s timers send (SI_TIMER, thread index `thread`), so a
/// benchmark or test times or checks the handler's path without waiting on a CPU clock. Returns 0
/// or an errno value.
int cprobe_timer_signal_self(int set, int signo, int32_t thread);

/// The signal handler's part for a timer's signal (si_code SI_TIMER): returns 1 when the signal
/// was one of these timers' (taken or dropped), 0 when it is someone else's. Async-signal-safe.
int cprobe_timer_handle(int signo, const void *info, void *context);

#ifdef __cplusplus
}
#endif

#endif
