// The parts of Probe that must be C: the sampling signal handler (async-signal-safe: no
// allocation, no locks, no Swift runtime), libunwind, raw syscalls, and the startup-mark table
// that must not allocate.
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include "CProbe.h"
#include "FramePointerUnwind.h"
#include "CPUTimerSampling.h"

#include <errno.h>
#include <fcntl.h>
#include <libunwind.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int cprobe_sigrtmin(void) { return SIGRTMIN; }
int cprobe_sigrtmax(void) { return SIGRTMAX; }
pid_t cprobe_gettid(void) { return (pid_t)syscall(SYS_gettid); }

int cprobe_set_thread_name(const char *name) {
    char truncated[16];
    strncpy(truncated, name, sizeof truncated - 1);
    truncated[sizeof truncated - 1] = 0;
    return pthread_setname_np(pthread_self(), truncated);
}

// MARK: - Slots: preallocated storage the handler writes into

enum { PHASE_IDLE = 0, PHASE_REQUESTED = 1, PHASE_WRITING = 2, PHASE_DONE = 3 };

// A request value travels in si_value: magic (16 bits) | generation (38 bits) | unwind method
// (2 bits) | slot (8 bits), so the handler can tell our signals from anyone else's and a late
// answer from the current one.
#define REQUEST_MAGIC 0x9b0eULL
#define GENERATION_MASK ((1ULL << 38) - 1)

typedef struct {
    // (generation << 2) | phase. The watchdog moves IDLE -> REQUESTED; the handler moves
    // REQUESTED -> WRITING -> DONE; the watchdog cancels REQUESTED -> IDLE on timeout.
    _Atomic uint64_t state;
    _Atomic int in_use;
    int semaphore_ready;
    uint64_t generation;  // owned by the watchdog holding the slot
    sem_t answered;
    int depth;
    int libunwind_steps;
    uint64_t handler_ns;  // from entering the handler to the answer
    uintptr_t task;       // the Swift task the thread ran, 0 for none
    uintptr_t pcs[CPROBE_MAX_FRAMES];
} probe_slot;

static probe_slot slots[CPROBE_MAX_SLOTS];

int cprobe_slot_acquire(void) {
    for (int i = 0; i < CPROBE_MAX_SLOTS; i++) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&slots[i].in_use, &expected, 1)) {
            if (!slots[i].semaphore_ready) {
                sem_init(&slots[i].answered, 0, 0);
                slots[i].semaphore_ready = 1;
            }
            return i;
        }
    }
    return -1;
}

void cprobe_slot_release(int slot) {
    if (slot < 0 || slot >= CPROBE_MAX_SLOTS) return;
    atomic_store(&slots[slot].in_use, 0);
}

// MARK: - Handler installation

typedef struct {
    int references;
    int installed;
    struct sigaction previous;
} installation;

static installation installations[_NSIG];
static pthread_mutex_t installation_lock = PTHREAD_MUTEX_INITIALIZER;
// Signals we sent whose handler has not run yet; while non-zero the handler must stay installed,
// because a real-time signal arriving at SIG_DFL would terminate the process.
static _Atomic long outstanding_requests;

static void pass_on(int signo, siginfo_t *info, void *context) {
    struct sigaction *previous = &installations[signo].previous;
    if (previous->sa_flags & SA_SIGINFO) {
        if (previous->sa_sigaction) previous->sa_sigaction(signo, info, context);
    } else if (previous->sa_handler != SIG_DFL && previous->sa_handler != SIG_IGN) {
        previous->sa_handler(signo);
    }
}

static uint64_t clock_ns(clockid_t clock);

// Sample requests this thread's handler has answered (initial-exec: no lazy TLS in a handler).
static __thread __attribute__((tls_model("initial-exec"))) uint64_t answered_here;

uint64_t cprobe_samples_answered_by_this_thread(void) { return answered_here; }

static void sample_handler(int signo, siginfo_t *info, void *context) {
    int saved_errno = errno;
    uint64_t entered = clock_ns(CLOCK_MONOTONIC);
    if (cprobe_timer_handle(signo, info, context)) {
        errno = saved_errno;
        return;
    }
    uint64_t value = (uint64_t)(uintptr_t)info->si_value.sival_ptr;
    if (info->si_code != SI_QUEUE || info->si_pid != getpid() || (value >> 48) != REQUEST_MAGIC) {
        pass_on(signo, info, context);
        errno = saved_errno;
        return;
    }
    atomic_fetch_sub(&outstanding_requests, 1);
    unsigned slot_index = (unsigned)(value & 0xff);
    int method = (int)((value >> 8) & 3);
    uint64_t generation = (value >> 10) & GENERATION_MASK;
    if (slot_index >= CPROBE_MAX_SLOTS) {
        errno = saved_errno;
        return;
    }
    probe_slot *slot = &slots[slot_index];
    uint64_t expected = (generation << 2) | PHASE_REQUESTED;
    if (!atomic_compare_exchange_strong(&slot->state, &expected, (generation << 2) | PHASE_WRITING)) {
        errno = saved_errno;  // a stale request the watchdog already gave up on
        return;
    }
    int steps = 0;
    slot->depth = cprobe_unwind_context(context, method, slot->pcs, CPROBE_MAX_FRAMES, &steps);
    slot->libunwind_steps = steps;
    slot->task = cprobe_current_task();
    slot->handler_ns = clock_ns(CLOCK_MONOTONIC) - entered;
    answered_here++;
    atomic_store(&slot->state, (generation << 2) | PHASE_DONE);
    sem_post(&slot->answered);
    errno = saved_errno;
}

int cprobe_install_handler(int signo) {
    if (signo <= 0 || signo >= _NSIG) return EINVAL;
    pthread_mutex_lock(&installation_lock);
    installation *entry = &installations[signo];
    int result = 0;
    if (!entry->installed) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = sample_handler;
        action.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        if (sigaction(signo, &action, &entry->previous) != 0) {
            result = errno;
        } else {
            entry->installed = 1;
        }
    }
    if (result == 0) entry->references++;
    pthread_mutex_unlock(&installation_lock);
    return result;
}

int cprobe_uninstall_handler(int signo) {
    if (signo <= 0 || signo >= _NSIG) return 0;
    pthread_mutex_lock(&installation_lock);
    installation *entry = &installations[signo];
    int restored = 0;
    if (entry->references > 0) entry->references--;
    // A request that timed out may still be pending delivery: give it up to 100 ms to arrive.
    for (int i = 0; i < 100 && entry->references == 0 && atomic_load(&outstanding_requests) > 0; i++) {
        struct timespec millisecond = {0, 1000000};
        nanosleep(&millisecond, NULL);
    }
    if (entry->references == 0 && entry->installed && atomic_load(&outstanding_requests) <= 0) {
        if (sigaction(signo, &entry->previous, NULL) == 0) {
            entry->installed = 0;
            restored = 1;
        }
    }
    pthread_mutex_unlock(&installation_lock);
    return restored;
}

// Whether something replaced Probe's handler for `signo` after Probe installed it (the application's
// own sigaction, another profiler): Probe then sends nothing, and its timers stop.
static int handler_replaced(int signo) {
    struct sigaction current;
    if (sigaction(signo, NULL, &current) != 0) return 0;
    return !(current.sa_flags & SA_SIGINFO) || current.sa_sigaction != sample_handler;
}

int cprobe_handler_taken(int signo) {
    if (signo <= 0 || signo >= _NSIG) return 0;
    pthread_mutex_lock(&installation_lock);
    int installed = installations[signo].installed;
    pthread_mutex_unlock(&installation_lock);
    return installed && handler_replaced(signo);
}

int cprobe_handler_installed(int signo) {
    if (signo <= 0 || signo >= _NSIG) return 0;
    pthread_mutex_lock(&installation_lock);
    int installed = installations[signo].installed;
    pthread_mutex_unlock(&installation_lock);
    return installed;
}

// MARK: - Sampling (watchdog side)

static struct timespec monotonic_deadline(uint64_t timeout_ns) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    uint64_t ns = (uint64_t)now.tv_nsec + timeout_ns % 1000000000ULL;
    now.tv_sec += (time_t)(timeout_ns / 1000000000ULL + ns / 1000000000ULL);
    now.tv_nsec = (long)(ns % 1000000000ULL);
    return now;
}

// A spin-wait hint: lets the sibling hyperthread (x86-64) or the core's other work (aarch64) run.
static inline void spin_pause(void) {
#if defined(__x86_64__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

/// Waits for the slot to reach `target` until `deadline`; returns the last state seen.
static uint64_t wait_for_state(probe_slot *slot, uint64_t target, const struct timespec *deadline) {
    // Most answers come within a few microseconds: spin that long before sleeping, since a
    // futex wake-up costs as much again as the whole sample.
    uint64_t spin_until = clock_ns(CLOCK_MONOTONIC) + 20000;
    do {
        if (atomic_load(&slot->state) == target) return target;
        spin_pause();
    } while (clock_ns(CLOCK_MONOTONIC) < spin_until);
    for (;;) {
        uint64_t state = atomic_load(&slot->state);
        if (state == target) return state;
        if (sem_clockwait(&slot->answered, CLOCK_MONOTONIC, deadline) != 0 && errno == ETIMEDOUT) {
            return atomic_load(&slot->state);
        }
        // Woken by an answer, a stale post from an earlier timed-out request, or EINTR: re-check.
    }
}

int cprobe_sample_send(int slot_index, int signo, pid_t tid, int method, uint64_t *request) {
    if (slot_index < 0 || slot_index >= CPROBE_MAX_SLOTS) return CPROBE_SAMPLE_SEND_FAILED;
    probe_slot *slot = &slots[slot_index];
    if ((atomic_load(&slot->state) & 3) == PHASE_WRITING) return CPROBE_SAMPLE_SLOT_BUSY;
    // The signal is someone else's now: their handler would get a request it does not know.
    if (handler_replaced(signo)) return CPROBE_SAMPLE_HANDLER_TAKEN;
    uint64_t generation = (++slot->generation) & GENERATION_MASK;
    atomic_store(&slot->state, (generation << 2) | PHASE_REQUESTED);

    siginfo_t info;
    memset(&info, 0, sizeof info);
    info.si_signo = signo;
    info.si_code = SI_QUEUE;
    info.si_pid = getpid();
    info.si_uid = getuid();
    uint64_t method_bits = (uint64_t)(method & 3);
    info.si_value.sival_ptr =
        (void *)(uintptr_t)((REQUEST_MAGIC << 48) | (generation << 10) | (method_bits << 8) | (uint64_t)slot_index);
    atomic_fetch_add(&outstanding_requests, 1);
    if (syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, signo, &info) != 0) {
        atomic_fetch_sub(&outstanding_requests, 1);
        atomic_store(&slot->state, (generation << 2) | PHASE_IDLE);
        return CPROBE_SAMPLE_SEND_FAILED;
    }
    *request = generation;
    return CPROBE_SAMPLE_OK;
}

int cprobe_sample_collect(int slot_index, uint64_t request, uint64_t timeout_ns, uintptr_t *pcs, int capacity,
                          cprobe_sample_info *sample) {
    memset(sample, 0, sizeof *sample);
    if (slot_index < 0 || slot_index >= CPROBE_MAX_SLOTS) return CPROBE_SAMPLE_SEND_FAILED;
    probe_slot *slot = &slots[slot_index];
    uint64_t generation = request;
    struct timespec deadline = monotonic_deadline(timeout_ns);
    uint64_t done = (generation << 2) | PHASE_DONE;
    uint64_t state = wait_for_state(slot, done, &deadline);
    if (state != done) {
        uint64_t requested = (generation << 2) | PHASE_REQUESTED;
        if (atomic_compare_exchange_strong(&slot->state, &requested, (generation << 2) | PHASE_IDLE)) {
            return CPROBE_SAMPLE_NO_ANSWER;
        }
        // The handler started writing just now: give it one more timeout to finish.
        deadline = monotonic_deadline(timeout_ns);
        state = wait_for_state(slot, done, &deadline);
        if (state != done) return CPROBE_SAMPLE_NO_ANSWER;  // slot stays busy until it finishes
    }
    int n = slot->depth < capacity ? slot->depth : capacity;
    memcpy(pcs, slot->pcs, (size_t)n * sizeof(uintptr_t));
    sample->depth = n;
    sample->libunwind_steps = slot->libunwind_steps;
    sample->handler_ns = slot->handler_ns;
    sample->task = slot->task;
    atomic_store(&slot->state, (generation << 2) | PHASE_IDLE);
    return CPROBE_SAMPLE_OK;
}

int cprobe_sample(int slot_index, int signo, pid_t tid, uint64_t timeout_ns, int method, uintptr_t *pcs,
                  int capacity, cprobe_sample_info *sample) {
    memset(sample, 0, sizeof *sample);
    uint64_t request = 0;
    int sent = cprobe_sample_send(slot_index, signo, tid, method, &request);
    if (sent != CPROBE_SAMPLE_OK) return sent;
    return cprobe_sample_collect(slot_index, request, timeout_ns, pcs, capacity, sample);
}

static int unwind_here(uintptr_t *pcs, int capacity) {
    unw_context_t context;
    unw_cursor_t cursor;
    if (unw_getcontext(&context) != 0 || unw_init_local(&cursor, &context) != 0) return 0;
    int depth = 0;
    do {
        unw_word_t ip = 0;
        if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0) break;
        if (pcs && depth < capacity) pcs[depth] = (uintptr_t)ip;
        depth++;
    } while ((pcs == NULL || depth < capacity) && depth < 4096 && unw_step(&cursor) > 0);
    return depth;
}

int cprobe_prime_unwinder(void) {
    // Also warms libunwind's global state (address-space caches, dl_iterate_phdr walk) so the
    // handler's first unwind does no lazy set-up.
    return unwind_here(NULL, 0);
}

int cprobe_unblock_signal(int signo) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, signo);
    return pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

// Signals (bit signo-1) this thread has been prepared for: pool and executor threads run many
// pings, and only the first one on each thread needs the unwind and the sigmask syscall.
static __thread uint64_t prepared_signals;

int cprobe_prepare_thread(int signo) {
    if (signo < 1 || signo > 64) return -1;
    uint64_t bit = (uint64_t)1 << (signo - 1);
    if (prepared_signals & bit) return 0;
    cprobe_prime_unwinder();
    if (!cprobe_thread_attached()) cprobe_attach_thread();
    cprobe_unblock_signal(signo);
    prepared_signals |= bit;
    return 1;
}

int cprobe_unwind_self(uintptr_t *pcs, int capacity) { return unwind_here(pcs, capacity); }

__attribute__((noinline)) int cprobe_unwind_self_with(int method, uintptr_t *pcs, int capacity) {
    // unw_context_t is a ucontext_t on x86_64: the same input the signal handler gets.
    unw_context_t context;
    if (unw_getcontext(&context) != 0) return 0;
    return cprobe_unwind_context(&context, method, pcs, capacity, NULL);
}

// MARK: - Clocks

static uint64_t clock_ns(clockid_t clock) {
    struct timespec ts;
    if (clock_gettime(clock, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t cprobe_monotonic_ns(void) { return clock_ns(CLOCK_MONOTONIC); }
uint64_t cprobe_boottime_ns(void) { return clock_ns(CLOCK_BOOTTIME); }

// The calling thread's schedstat descriptor + 1; 0 not opened yet, -1 unreadable (not tried again).
static __thread int run_queue_fd_plus_one = 0;
static pthread_key_t run_queue_fd_key;
static pthread_once_t run_queue_fd_key_once = PTHREAD_ONCE_INIT;

static void close_run_queue_fd(void *fd_plus_one) { close((int)(intptr_t)fd_plus_one - 1); }
static void make_run_queue_fd_key(void) { pthread_key_create(&run_queue_fd_key, close_run_queue_fd); }

int64_t cprobe_thread_run_queue_wait_ns(void) {
    if (run_queue_fd_plus_one == 0) {
        int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
        pthread_once(&run_queue_fd_key_once, make_run_queue_fd_key);
        if (fd >= 0 && pthread_setspecific(run_queue_fd_key, (void *)(intptr_t)(fd + 1)) != 0) {
            close(fd);
            fd = -1;
        }
        run_queue_fd_plus_one = fd >= 0 ? fd + 1 : -1;
    }
    if (run_queue_fd_plus_one < 0) return -1;
    // "<on-CPU ns> <run_delay ns> <timeslices>\n"
    char text[96];
    ssize_t length = pread(run_queue_fd_plus_one - 1, text, sizeof text - 1, 0);
    if (length <= 0) return -1;
    text[length] = 0;
    char *end;
    strtoull(text, &end, 10);
    if (end == text || *end != ' ') return -1;
    const char *second = end + 1;
    unsigned long long wait = strtoull(second, &end, 10);
    return end == second ? -1 : (int64_t)wait;
}

int64_t cprobe_thread_cpu_ns(pid_t tid) {
    // The kernel's per-thread CPU clock id (MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)): readable
    // for any thread of the calling process, without a pthread_t.
    clockid_t clock = (clockid_t)((~(unsigned)tid << 3) | 6);
    struct timespec ts;
    if (clock_gettime(clock, &ts) != 0) return -1;
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t cprobe_self_thread_cpu_ns(void) { return (int64_t)clock_ns(CLOCK_THREAD_CPUTIME_ID); }

int cprobe_list_threads(int task_fd, pid_t *tids, int capacity) {
    // getdents64 into a buffer on the stack: opendir would allocate 32 KiB for each listing.
    char buffer[4096];
    if (lseek(task_fd, 0, SEEK_SET) != 0) return -1;
    int count = 0;
    for (;;) {
        long n = syscall(SYS_getdents64, task_fd, buffer, sizeof buffer);
        if (n < 0) return -1;
        if (n == 0) return count;
        for (long offset = 0; offset < n;) {
            unsigned short length;
            memcpy(&length, buffer + offset + 16, sizeof length);  // d_reclen, after d_ino and d_off
            const char *name = buffer + offset + 19;               // d_name, after d_type
            pid_t tid = 0;
            for (const char *c = name; *c >= '0' && *c <= '9'; c++) tid = tid * 10 + (*c - '0');
            if (tid > 0 && count < capacity) tids[count] = tid;
            if (tid > 0) count++;
            offset += length;
        }
    }
}

// MARK: - libdispatch

extern void *dispatch_get_current_queue(void);

const void *cprobe_dispatch_current_queue(void) { return dispatch_get_current_queue(); }

#define DISPATCH_QUEUE_STATE_OFFSET 56
#define DISPATCH_LOCK_OWNER_MASK 0x3fffffffu

pid_t cprobe_dispatch_drain_owner(const void *queue) {
    if (!queue) return 0;
    uint64_t state = __atomic_load_n((const uint64_t *)((const char *)queue + DISPATCH_QUEUE_STATE_OFFSET),
                                     __ATOMIC_RELAXED);
    return (pid_t)(state & DISPATCH_LOCK_OWNER_MASK);
}

// MARK: - Startup marks

#define STARTUP_MAX_MARKS 256

typedef struct {
    const char *name;
    uint64_t boottime_ns;
    _Atomic int ready;
} startup_mark;

static startup_mark startup_marks[STARTUP_MAX_MARKS];
static _Atomic int startup_mark_next;
static uint64_t runtime_init_ns;

static int add_startup_mark(const char *name, uint64_t now) {
    int index = atomic_fetch_add_explicit(&startup_mark_next, 1, memory_order_relaxed);
    if (index >= STARTUP_MAX_MARKS) return -1;
    startup_marks[index].name = name;
    startup_marks[index].boottime_ns = now;
    atomic_store_explicit(&startup_marks[index].ready, 1, memory_order_release);
    return 0;
}

int cprobe_startup_mark(const char *name) { return add_startup_mark(name, clock_ns(CLOCK_BOOTTIME)); }

int cprobe_startup_mark_count(void) {
    int n = atomic_load(&startup_mark_next);
    return n < STARTUP_MAX_MARKS ? n : STARTUP_MAX_MARKS;
}

int cprobe_startup_mark_at(int index, const char **name, uint64_t *boottime_ns) {
    if (index < 0 || index >= cprobe_startup_mark_count()) return -1;
    if (!atomic_load_explicit(&startup_marks[index].ready, memory_order_acquire)) return -1;
    *name = startup_marks[index].name;
    *boottime_ns = startup_marks[index].boottime_ns;
    return 0;
}

uint64_t cprobe_runtime_init_ns(void) { return runtime_init_ns; }

void cprobe_startup_reset(void) {
    int count = cprobe_startup_mark_count();
    for (int i = 0; i < count; i++) atomic_store(&startup_marks[i].ready, 0);
    atomic_store(&startup_mark_next, 0);
}

static char startup_file[4096];

static void write_all(int fd, const char *bytes, size_t count) {
    while (count > 0) {
        ssize_t n = write(fd, bytes, count);
        if (n < 0) {
            if (errno == EINTR) continue;
            return;
        }
        bytes += n;
        count -= (size_t)n;
    }
}

/// At exit, appends every mark as "<boottime_ns> <name>\n" to the file the launcher named.
static void write_startup_file(void) {
    int fd = open(startup_file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return;
    int count = cprobe_startup_mark_count();
    for (int i = 0; i < count; i++) {
        const char *name;
        uint64_t ns;
        if (cprobe_startup_mark_at(i, &name, &ns) != 0) continue;
        char line[512];
        int n = snprintf(line, sizeof line, "%llu %s\n", (unsigned long long)ns, name);
        if (n > 0) write_all(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    }
    close(fd);
}

/// The only work done in every process that links Probe: one clock read (vDSO), its mark in static
/// memory and one environment lookup; no allocation. Only a constructor sees when the loader and runtime
/// are done ("runtime-init"). The exit hook is registered here, only when PERFKIT_STARTUP_FILE is set: at
/// the first mark, its atomic test cost every mark +12% instructions
/// (docs/probe-in-a-server.md#the-startup-constructors-exit-hook).
__attribute__((constructor)) static void cprobe_runtime_init(void) {
    runtime_init_ns = clock_ns(CLOCK_BOOTTIME);
    add_startup_mark("runtime-init", runtime_init_ns);
    const char *path = getenv("PERFKIT_STARTUP_FILE");
    if (path && path[0] && strlen(path) < sizeof startup_file) {
        strcpy(startup_file, path);
        atexit(write_startup_file);
    }
}

size_t cprobe_malloc_free_bytes(void) {
#if defined(__GLIBC__)
    return mallinfo2().fordblks;
#else
    return 0;  // musl has no mallinfo2
#endif
}

bool cprobe_malloc_block_is_mapped(const void *block) {
#if defined(__GLIBC__)
    // The chunk's size word, just before the block, has IS_MMAPPED (0x2) set.
    return (((const size_t *)block)[-1] & 0x2) != 0;
#else
    return false;
#endif
}
