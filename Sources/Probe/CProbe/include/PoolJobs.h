#ifndef CPROBE_POOL_JOBS_H
#define CPROBE_POOL_JOBS_H

#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Most cooperative-pool threads tracked at once. A thread's entry is freed when the thread exits
/// (libdispatch retires idle workers after a few seconds), so this bounds the live pool, not the
/// threads seen over a process's life.
#define CPROBE_MAX_POOL_THREADS 256

/// A snapshot of one thread that runs Swift concurrency jobs through Probe's trampoline.
typedef struct {
    /// The kernel thread id, or 0 for a free entry.
    int32_t tid;
    /// CLOCK_MONOTONIC_COARSE ns when the running job began; 0 between jobs.
    uint64_t job_since;
    /// CLOCK_MONOTONIC_COARSE ns when the latest job ended.
    uint64_t last_end;
    /// Jobs this thread ran through the trampoline.
    uint64_t jobs;
    /// Jobs of at least the kept length (``cprobe_pool_jobs_keep_long_jobs``) it ended, and the
    /// latest one's begin and end (CLOCK_MONOTONIC_COARSE ns; 0 when none).
    uint64_t long_jobs;
    uint64_t long_since;
    uint64_t long_end;
} cprobe_pool_thread;

/// Why `cprobe_pool_jobs_install` did not install the hook.
enum {
    CPROBE_POOL_JOBS_INSTALLED = 0,
    /// Another hook on the global executor is installed (e.g. SwiftNIO's
    /// `installSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor`): jobs do not reach
    /// Dispatch's pool through the runtime's path, so there is nothing to time.
    CPROBE_POOL_JOBS_HOOK_TAKEN = 1,
    /// Not supported on this platform.
    CPROBE_POOL_JOBS_UNSUPPORTED = 2,
};

/// True for a priority byte the runtime gives jobs (`JobPriority`): a job or task whose byte is
/// another is not laid out as Probe reads it.
int cprobe_known_job_priority(unsigned priority);

/// Installs Probe's hook on Swift concurrency's global executor (`swift_task_enqueueGlobal_hook`):
/// each job of a priority whose queue is known (``cprobe_pool_jobs_learn_queue``) is handed to that
/// same queue through a trampoline that stamps the running thread's entry around
/// `swift_job_run`, exactly as the runtime would run it. Jobs of other priorities go the
/// runtime's own way. Threads that run a job are prepared for sampling with `signo`
/// (``cprobe_prepare_thread``). Reference counted; returns a CPROBE_POOL_JOBS_… value.
int cprobe_pool_jobs_install(int signo);
/// How many times the task at `task` was handed to the global executor while the hook was installed
/// (shared with the tasks whose addresses fall in the same of 65,536 slots).
uint32_t cprobe_task_enqueues(uintptr_t task);
/// Drops one reference; the last one restores the previous (empty) hook. Jobs already handed to
/// the trampoline still run through it.
void cprobe_pool_jobs_uninstall(void);
/// True while the hook is installed.
int cprobe_pool_jobs_installed(void);

/// Called from inside a job of priority `priority` (a task's raw priority) running on the
/// global executor: remembers the queue it runs on, if it is the runtime's global concurrent
/// queue. Returns 1 when learned (or already known), 0 when the current queue is not that queue.
int cprobe_pool_jobs_learn_queue(int priority);
/// True once the queue of `priority` is known.
int cprobe_pool_jobs_knows_priority(int priority);

/// How many entries may be in use (some of them free).
int cprobe_pool_jobs_entry_count(void);
/// Reads entry `index` (each field atomically; tid 0: free). Returns 0, or -1 for a bad index.
int cprobe_pool_jobs_entry(int index, cprobe_pool_thread *snapshot);
/// How many tracked threads are inside a job now, and (in `*oldest_since`, 0 when none) when the
/// oldest of those jobs began: one pass, nothing allocated, for looks at an idle pool.
int cprobe_pool_jobs_busy_summary(uint64_t *oldest_since);
/// Keeps each thread's latest job of at least `nanoseconds` (the shortest any caller asked for), so
/// that a look after it ended can still time it. Never raised again.
void cprobe_pool_jobs_keep_long_jobs(uint64_t nanoseconds);
/// Kept long jobs of the threads alive now, all together: changed means one ended since.
uint64_t cprobe_pool_jobs_long_jobs_total(void);
/// Threads that could not get an entry (more than CPROBE_MAX_POOL_THREADS alive at once).
uint64_t cprobe_pool_jobs_untracked_threads(void);
/// Jobs handed back to the runtime's own path because their priority byte was not one the
/// runtime uses (the job layout is not the one expected): tracking is then incomplete.
uint64_t cprobe_pool_jobs_unrecognised(void);

/// For tests: installs (1) or removes (0) a hook of someone else's on the global executor, one that
/// only passes each job on, as a library that takes over the global executor would hold the hook.
void cprobe_pool_jobs_test_take_hook(int take);

/// Runs `body(context)` between the same stamps the trampoline writes around a job, on the
/// calling thread: what the trampoline adds to a job, without Swift concurrency (benchmarks).
void cprobe_pool_jobs_run_stamped(void (*body)(void *), void *context);

#ifdef __cplusplus
}
#endif

#endif
