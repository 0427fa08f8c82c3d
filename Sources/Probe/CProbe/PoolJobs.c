// Which cooperative-pool thread runs a Swift concurrency job, and since when: a long job (a
// request handler that blocks its pool thread) is a stall of that thread even while the rest of
// the pool is free, and the pool cannot say so by itself.
//
// On Linux the runtime's global executor hands each job to a concurrent Dispatch queue of the
// job's priority ("Swift global concurrent queue", width = logical CPUs) with
// `dispatch_async_f(queue, job, __swift_run_job)`, and `__swift_run_job` runs it with
// `swift_job_run(job, generic executor)`. Probe's hook does the same with its own function, which
// stamps the thread's entry before and after `swift_job_run`: same queue, same width, same
// executor, one clock read at each end. The queue is learned from inside a job of each priority
// (the runtime creates it lazily and keeps it for the life of the process).
#define _GNU_SOURCE
#include "PoolJobs.h"
#include "CProbe.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

// Job priorities the runtime uses (JobPriority): unspecified, background, utility, default,
// user-initiated, user-interactive. Any other byte means the layout is not the one expected.
int cprobe_known_job_priority(unsigned priority) {
    return priority == 0 || priority == 0x09 || priority == 0x11 || priority == 0x15 || priority == 0x19 ||
           priority == 0x21;
}

// The runtime's hook, `swiftcall` and the job layout are the same on both 64-bit Linux targets.
#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))

// MARK: - The runtime's side (libswift_Concurrency and libdispatch, declared here: no headers)

typedef void (*probe_enqueue_original)(void *job) __attribute__((swiftcall));
typedef void (*probe_enqueue_hook)(void *job, probe_enqueue_original original) __attribute__((swiftcall));
extern probe_enqueue_hook swift_task_enqueueGlobal_hook;
// A task that sleeps is handed over with a delay or a deadline (`Task.sleep`), through hooks of their
// own (ConcurrencyHooks.def; the original is the hook's last argument, as 6.3.1's code passes it).
typedef void (*probe_delay_original)(unsigned long long delay, void *job) __attribute__((swiftcall));
typedef void (*probe_delay_hook)(unsigned long long delay, void *job, probe_delay_original original)
    __attribute__((swiftcall));
extern probe_delay_hook swift_task_enqueueGlobalWithDelay_hook;
typedef void (*probe_deadline_original)(long long sec, long long nsec, long long tsec, long long tnsec, int clock,
                                        void *job) __attribute__((swiftcall));
typedef void (*probe_deadline_hook)(long long sec, long long nsec, long long tsec, long long tnsec, int clock,
                                    void *job, probe_deadline_original original) __attribute__((swiftcall));
extern probe_deadline_hook swift_task_enqueueGlobalWithDeadline_hook;
// SerialExecutorRef is two words; {0, 0} is the generic executor, as `__swift_run_job` passes.
extern void swift_job_run(void *job, void *identity, uintptr_t implementation) __attribute__((swiftcall));
extern void dispatch_async_f(void *queue, void *context, void (*work)(void *));
extern void *dispatch_get_current_queue(void);
extern const char *dispatch_queue_get_label(void *queue);

// A Job is a HeapObject (metadata, reference counts: 16 bytes), two scheduler-private words, then
// its 32-bit flags: kind in the low byte, priority in the next (swift/ABI/MetadataValues.h,
// JobFlags). swift_job_run itself reads the kind at this offset.
enum { JOB_FLAGS_OFFSET = 32 };

static const char *const runtime_queue_label = "Swift global concurrent queue";

// MARK: - Per-thread entries

// Written by its own thread only (`job_since` last, with release), read by the watchdog.
typedef struct {
    _Atomic int32_t tid;
    _Atomic uint64_t job_since;
    _Atomic uint64_t last_end;
    _Atomic uint64_t jobs;
    // The latest job that lasted at least `long_floor`, under a sequence lock (odd while written):
    // a look that comes after it ended can still time it (a 150 ms starvation ended between two
    // looks of a watchdog woken late, 2026-12-06).
    _Atomic uint64_t long_seq;
    _Atomic uint64_t long_since;
    _Atomic uint64_t long_end;
} pool_entry;

static pool_entry entries[CPROBE_MAX_POOL_THREADS];
// Entries handed out so far (a high-water mark: freed entries below it are reused first).
static _Atomic int entry_count;
static _Atomic uint64_t untracked_threads;
static _Atomic uint64_t unrecognised_jobs;
static _Atomic int sampling_signal;
// Jobs at least this long are kept (`cprobe_pool_jobs_keep_long_jobs`); none until a watchdog asks.
static _Atomic uint64_t long_floor = UINT64_MAX;

static __thread pool_entry *this_thread_entry;
static __thread int this_thread_has_no_entry;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

// A thread's entry is freed when it exits, so a long-running service whose Dispatch workers come
// and go never runs out of entries.
static void release_entry(void *entry) {
    pool_entry *e = entry;
    atomic_store_explicit(&e->job_since, 0, memory_order_relaxed);
    atomic_store_explicit(&e->tid, 0, memory_order_release);
}

static void make_exit_key(void) { pthread_key_create(&exit_key, release_entry); }

static pool_entry *claim_entry(void) {
    pthread_once(&exit_key_once, make_exit_key);
    int32_t tid = (int32_t)cprobe_gettid();
    while (1) {
        // A free entry below the high-water mark first (its thread exited), else a new one.
        int count = atomic_load_explicit(&entry_count, memory_order_acquire);
        if (count > CPROBE_MAX_POOL_THREADS) count = CPROBE_MAX_POOL_THREADS;
        for (int i = 0; i < count; i++) {
            int32_t free_tid = 0;
            if (atomic_compare_exchange_strong(&entries[i].tid, &free_tid, tid)) return &entries[i];
        }
        int index = atomic_fetch_add(&entry_count, 1);
        if (index >= CPROBE_MAX_POOL_THREADS) return NULL;
        int32_t free_tid = 0;
        // Another thread's scan may have taken the new entry first: then look again.
        if (atomic_compare_exchange_strong(&entries[index].tid, &free_tid, tid)) return &entries[index];
    }
}

static pool_entry *current_entry(void) {
    pool_entry *entry = this_thread_entry;
    if (__builtin_expect(entry != NULL, 1)) return entry;
    if (this_thread_has_no_entry) return NULL;
    entry = claim_entry();
    if (!entry) {
        this_thread_has_no_entry = 1;
        atomic_fetch_add(&untracked_threads, 1);
        return NULL;
    }
    atomic_store_explicit(&entry->last_end, 0, memory_order_relaxed);
    atomic_store_explicit(&entry->jobs, 0, memory_order_relaxed);
    atomic_store_explicit(&entry->long_since, 0, memory_order_relaxed);
    atomic_store_explicit(&entry->long_end, 0, memory_order_relaxed);
    atomic_store_explicit(&entry->long_seq, 0, memory_order_release);
    this_thread_entry = entry;
    pthread_setspecific(exit_key, entry);
    // A pool thread must accept the sampling signal and have libunwind ready before it is
    // signalled: done once, here, instead of by tasks sent to find each thread.
    int signo = atomic_load_explicit(&sampling_signal, memory_order_relaxed);
    if (signo > 0) cprobe_prepare_thread(signo);
    return entry;
}

// Jobs are stamped with CLOCK_MONOTONIC_COARSE, two reads a job at a quarter of CLOCK_MONOTONIC's cost
// (docs/probe-in-a-server.md#what-really-stalls-a-swift-server-and-what-watching-costs-at-rest). It is good
// to a kernel tick (4 ms at HZ=250) and never runs ahead of CLOCK_MONOTONIC, so a job's age read against the
// precise clock is at most a tick too long.
static inline uint64_t coarse_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline void stamp_begin(pool_entry *entry) {
    atomic_store_explicit(&entry->job_since, coarse_now(), memory_order_release);
}

static inline void keep_long(pool_entry *entry, uint64_t since, uint64_t end) {
    uint64_t seq = atomic_load_explicit(&entry->long_seq, memory_order_relaxed);
    atomic_store_explicit(&entry->long_seq, seq + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&entry->long_since, since, memory_order_relaxed);
    atomic_store_explicit(&entry->long_end, end, memory_order_relaxed);
    atomic_store_explicit(&entry->long_seq, seq + 2, memory_order_release);
}

static inline void stamp_end(pool_entry *entry) {
    uint64_t end = coarse_now();
    uint64_t since = atomic_load_explicit(&entry->job_since, memory_order_relaxed);
    if (end - since >= atomic_load_explicit(&long_floor, memory_order_relaxed)) keep_long(entry, since, end);
    atomic_store_explicit(&entry->last_end, end, memory_order_relaxed);
    atomic_store_explicit(&entry->jobs, atomic_load_explicit(&entry->jobs, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    atomic_store_explicit(&entry->job_since, 0, memory_order_release);
}

// MARK: - The hook and the trampoline

static void *_Atomic queues[256];
static _Atomic int install_count;
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;

static void cprobe_pool_run_job(void *job) {
    pool_entry *entry = current_entry();
    // A job never runs another one synchronously on this path; if one ever did, the outer stamp
    // stays (the thread is still inside the outer job).
    int outer = entry && atomic_load_explicit(&entry->job_since, memory_order_relaxed) == 0;
    if (outer) stamp_begin(entry);
    swift_job_run(job, NULL, 0);
    if (outer) stamp_end(entry);
}

// How often each task was handed to the global executor (to run, or to go on after an await), by
// its address's slot: a suspended task whose count moved between two looks ran in between. Tasks
// that share a slot count together, which can only make a parked one look as if it ran.
#define TASK_ENQUEUE_SLOTS 65536  // 256 KiB, resident only where touched
static _Atomic uint32_t task_enqueues[TASK_ENQUEUE_SLOTS];

static size_t task_slot(uintptr_t task) { return (size_t)((task >> 4) ^ (task >> 16)) & (TASK_ENQUEUE_SLOTS - 1); }

uint32_t cprobe_task_enqueues(uintptr_t task) {
    return atomic_load_explicit(&task_enqueues[task_slot(task)], memory_order_relaxed);
}

static void count_task(const void *job) {
    if (((const uint8_t *)job)[JOB_FLAGS_OFFSET] == 0) {  // the job is a task (kind 0)
        atomic_fetch_add_explicit(&task_enqueues[task_slot((uintptr_t)job)], 1, memory_order_relaxed);
    }
}

__attribute__((swiftcall)) static void enqueue_with_delay(unsigned long long delay, void *job,
                                                          probe_delay_original original) {
    count_task(job);
    original(delay, job);
}

__attribute__((swiftcall)) static void enqueue_with_deadline(long long sec, long long nsec, long long tsec,
                                                             long long tnsec, int clock, void *job,
                                                             probe_deadline_original original) {
    count_task(job);
    original(sec, nsec, tsec, tnsec, clock, job);
}

__attribute__((swiftcall)) static void enqueue_global(void *job, probe_enqueue_original original) {
    count_task(job);
    unsigned priority = ((const uint8_t *)job)[JOB_FLAGS_OFFSET + 1];
    void *queue = atomic_load_explicit(&queues[priority], memory_order_acquire);
    if (queue == NULL) {
        if (!cprobe_known_job_priority(priority)) atomic_fetch_add_explicit(&unrecognised_jobs, 1, memory_order_relaxed);
        original(job);
        return;
    }
    dispatch_async_f(queue, job, cprobe_pool_run_job);
}

int cprobe_pool_jobs_install(int signo) {
    pthread_mutex_lock(&install_lock);
    int result = CPROBE_POOL_JOBS_INSTALLED;
    if (install_count == 0) {
        if (swift_task_enqueueGlobal_hook != NULL && swift_task_enqueueGlobal_hook != enqueue_global) {
            result = CPROBE_POOL_JOBS_HOOK_TAKEN;
        } else {
            atomic_store(&sampling_signal, signo);
            swift_task_enqueueGlobal_hook = enqueue_global;
            // Only counting: left alone when someone else holds them.
            if (swift_task_enqueueGlobalWithDelay_hook == NULL) swift_task_enqueueGlobalWithDelay_hook = enqueue_with_delay;
            if (swift_task_enqueueGlobalWithDeadline_hook == NULL) {
                swift_task_enqueueGlobalWithDeadline_hook = enqueue_with_deadline;
            }
        }
    }
    if (result == CPROBE_POOL_JOBS_INSTALLED) install_count++;
    pthread_mutex_unlock(&install_lock);
    return result;
}

void cprobe_pool_jobs_uninstall(void) {
    pthread_mutex_lock(&install_lock);
    if (install_count > 0 && --install_count == 0 && swift_task_enqueueGlobal_hook == enqueue_global) {
        swift_task_enqueueGlobal_hook = NULL;
        if (swift_task_enqueueGlobalWithDelay_hook == enqueue_with_delay) swift_task_enqueueGlobalWithDelay_hook = NULL;
        if (swift_task_enqueueGlobalWithDeadline_hook == enqueue_with_deadline) {
            swift_task_enqueueGlobalWithDeadline_hook = NULL;
        }
    }
    pthread_mutex_unlock(&install_lock);
}

int cprobe_pool_jobs_installed(void) { return swift_task_enqueueGlobal_hook == enqueue_global; }

int cprobe_pool_jobs_learn_queue(int priority) {
    if (priority < 0 || priority > 255 || !cprobe_known_job_priority((unsigned)priority)) return 0;
    if (atomic_load(&queues[priority]) != NULL) return 1;
    void *queue = dispatch_get_current_queue();
    const char *label = queue ? dispatch_queue_get_label(queue) : NULL;
    if (label == NULL || strcmp(label, runtime_queue_label) != 0) return 0;
    atomic_store_explicit(&queues[priority], queue, memory_order_release);
    return 1;
}

int cprobe_pool_jobs_knows_priority(int priority) {
    if (priority < 0 || priority > 255) return 0;
    return atomic_load(&queues[priority]) != NULL;
}

int cprobe_pool_jobs_entry_count(void) {
    int n = atomic_load_explicit(&entry_count, memory_order_acquire);
    return n < CPROBE_MAX_POOL_THREADS ? n : CPROBE_MAX_POOL_THREADS;
}

int cprobe_pool_jobs_entry(int index, cprobe_pool_thread *snapshot) {
    if (index < 0 || index >= CPROBE_MAX_POOL_THREADS) return -1;
    pool_entry *e = &entries[index];
    snapshot->job_since = atomic_load_explicit(&e->job_since, memory_order_acquire);
    snapshot->last_end = atomic_load_explicit(&e->last_end, memory_order_relaxed);
    snapshot->jobs = atomic_load_explicit(&e->jobs, memory_order_relaxed);
    snapshot->tid = atomic_load_explicit(&e->tid, memory_order_acquire);
    // The writer is one thread between two clock reads: a few tries find the lock even.
    snapshot->long_jobs = 0;
    snapshot->long_since = 0;
    snapshot->long_end = 0;
    for (int attempt = 0; attempt < 16; attempt++) {
        uint64_t before = atomic_load_explicit(&e->long_seq, memory_order_acquire);
        if (before & 1) continue;
        uint64_t since = atomic_load_explicit(&e->long_since, memory_order_relaxed);
        uint64_t end = atomic_load_explicit(&e->long_end, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&e->long_seq, memory_order_relaxed) != before) continue;
        snapshot->long_jobs = before / 2;
        snapshot->long_since = since;
        snapshot->long_end = end;
        break;
    }
    return 0;
}

void cprobe_pool_jobs_keep_long_jobs(uint64_t nanoseconds) {
    uint64_t floor = atomic_load(&long_floor);
    while (nanoseconds < floor && !atomic_compare_exchange_weak(&long_floor, &floor, nanoseconds)) {
    }
}

uint64_t cprobe_pool_jobs_long_jobs_total(void) {
    uint64_t total = 0;
    int count = cprobe_pool_jobs_entry_count();
    for (int i = 0; i < count; i++) total += atomic_load_explicit(&entries[i].long_seq, memory_order_relaxed) / 2;
    return total;
}

int cprobe_pool_jobs_busy_summary(uint64_t *oldest_since) {
    int busy = 0;
    uint64_t oldest = 0;
    int count = cprobe_pool_jobs_entry_count();
    for (int i = 0; i < count; i++) {
        if (atomic_load_explicit(&entries[i].tid, memory_order_relaxed) == 0) continue;
        uint64_t since = atomic_load_explicit(&entries[i].job_since, memory_order_acquire);
        if (since == 0) continue;
        busy++;
        if (oldest == 0 || since < oldest) oldest = since;
    }
    *oldest_since = oldest;
    return busy;
}

uint64_t cprobe_pool_jobs_untracked_threads(void) { return atomic_load(&untracked_threads); }
uint64_t cprobe_pool_jobs_unrecognised(void) { return atomic_load(&unrecognised_jobs); }

__attribute__((swiftcall)) static void foreign_hook(void *job, probe_enqueue_original original) { original(job); }

void cprobe_pool_jobs_test_take_hook(int take) {
    pthread_mutex_lock(&install_lock);
    if (take && swift_task_enqueueGlobal_hook == NULL) swift_task_enqueueGlobal_hook = foreign_hook;
    if (!take && swift_task_enqueueGlobal_hook == foreign_hook) swift_task_enqueueGlobal_hook = NULL;
    pthread_mutex_unlock(&install_lock);
}

void cprobe_pool_jobs_run_stamped(void (*body)(void *), void *context) {
    pool_entry *entry = current_entry();
    if (entry) stamp_begin(entry);
    body(context);
    if (entry) stamp_end(entry);
}

#else

int cprobe_pool_jobs_install(int signo) {
    (void)signo;
    return CPROBE_POOL_JOBS_UNSUPPORTED;
}
uint32_t cprobe_task_enqueues(uintptr_t task) {
    (void)task;
    return 0;
}
void cprobe_pool_jobs_uninstall(void) {}
int cprobe_pool_jobs_installed(void) { return 0; }
int cprobe_pool_jobs_learn_queue(int priority) {
    (void)priority;
    return 0;
}
int cprobe_pool_jobs_knows_priority(int priority) {
    (void)priority;
    return 0;
}
int cprobe_pool_jobs_entry_count(void) { return 0; }
int cprobe_pool_jobs_entry(int index, cprobe_pool_thread *snapshot) {
    (void)index;
    (void)snapshot;
    return -1;
}
int cprobe_pool_jobs_busy_summary(uint64_t *oldest_since) {
    *oldest_since = 0;
    return 0;
}
void cprobe_pool_jobs_keep_long_jobs(uint64_t nanoseconds) { (void)nanoseconds; }
uint64_t cprobe_pool_jobs_long_jobs_total(void) { return 0; }
uint64_t cprobe_pool_jobs_untracked_threads(void) { return 0; }
uint64_t cprobe_pool_jobs_unrecognised(void) { return 0; }
void cprobe_pool_jobs_test_take_hook(int take) { (void)take; }
void cprobe_pool_jobs_run_stamped(void (*body)(void *), void *context) { body(context); }

#endif
