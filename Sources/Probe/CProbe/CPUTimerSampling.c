// Samples threads where their CPU time runs out, as perf's cpu-clock and Go's profiler do: a
// timer on each thread's own CPU clock signals that thread while it runs (the kernel delivers it
// on the way back to user space), so the interrupted instruction is where the time went. The
// handler unwinds into a lock-free ring (Vyukov's bounded queue: many handlers, one drainer).
#define _GNU_SOURCE
#include "CPUTimerSampling.h"
#include "FramePointerUnwind.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <time.h>

_Static_assert(CPROBE_TIMER_SETS <= 16, "the set index travels in 4 bits of the signal's value");
_Static_assert(CPROBE_TIMER_THREADS == (1 << 20), "the thread index travels in 20 bits");
_Static_assert(sizeof(void *) == 8, "the signal's value carries 64 bits");

// The signal's value: magic (16 bits) | generation (24) | set (4) | thread index (20). The magic
// differs from the watchdog requests' so the handler tells the two apart.
#define TIMER_MAGIC 0x9b0fULL
#define GENERATION_BITS 0xffffffU

typedef struct {
    // Vyukov's sequence: equal to the position when free for it, position + 1 once written.
    _Atomic uint64_t sequence;
    cprobe_timer_sample sample;
} ring_cell;

typedef struct {
    _Atomic int in_use;
    // Bumped on acquire and release: a signal from an earlier owner's timer is dropped.
    _Atomic uint32_t generation;
    // Handlers between their generation check and their last write: release waits for them.
    _Atomic int writers;
    _Atomic uint64_t head;
    uint64_t tail;  // the drainer's alone
    _Atomic uint64_t dropped;
    _Atomic uint64_t dropped_expirations;
    ring_cell *cells;
} timer_set;

static timer_set sets[CPROBE_TIMER_SETS];

int cprobe_timer_set_acquire(void) {
    for (int i = 0; i < CPROBE_TIMER_SETS; i++) {
        int expected = 0;
        if (!atomic_compare_exchange_strong(&sets[i].in_use, &expected, 1)) continue;
        timer_set *set = &sets[i];
        if (!set->cells) {
            set->cells = calloc(CPROBE_TIMER_RING, sizeof(ring_cell));
            if (!set->cells) {
                atomic_store(&set->in_use, 0);
                return -1;
            }
        }
        for (uint64_t c = 0; c < CPROBE_TIMER_RING; c++) atomic_store(&set->cells[c].sequence, c);
        atomic_store(&set->head, 0);
        set->tail = 0;
        atomic_store(&set->dropped, 0);
        atomic_store(&set->dropped_expirations, 0);
        atomic_store(&set->generation, (atomic_load(&set->generation) + 1) & GENERATION_BITS);
        return i;
    }
    return -1;
}

void cprobe_timer_set_release(int index) {
    if (index < 0 || index >= CPROBE_TIMER_SETS) return;
    timer_set *set = &sets[index];
    atomic_store(&set->generation, (atomic_load(&set->generation) + 1) & GENERATION_BITS);
    while (atomic_load(&set->writers) > 0) {
        struct timespec microsecond = {0, 1000};
        nanosleep(&microsecond, NULL);
    }
    atomic_store(&set->in_use, 0);  // the ring stays allocated for the next owner
}

static void *signal_value(int index, int32_t thread) {
    uint64_t generation = atomic_load(&sets[index].generation);
    return (void *)(uintptr_t)((TIMER_MAGIC << 48) | (generation << 24) | ((uint64_t)index << 20) | (uint64_t)thread);
}

int cprobe_timer_signal_self(int index, int signo, int32_t thread) {
    if (index < 0 || index >= CPROBE_TIMER_SETS || thread < 0 || thread >= CPROBE_TIMER_THREADS) return EINVAL;
    siginfo_t info;
    memset(&info, 0, sizeof info);
    info.si_signo = signo;
    info.si_code = SI_TIMER;  // negative: the kernel lets a process queue it to itself
    info.si_value.sival_ptr = signal_value(index, thread);
    if (syscall(SYS_rt_tgsigqueueinfo, getpid(), (pid_t)syscall(SYS_gettid), signo, &info) != 0) return errno;
    return 0;
}

// The timer syscalls themselves, not glibc's wrappers: their timer_t turns the kernel's id 0 into
// a null pointer, and the thread-directed notification needs the kernel's sigevent layout anyway.
int cprobe_timer_arm(int index, int signo, pid_t tid, int32_t thread, uint64_t interval_ns, int *timer) {
    if (index < 0 || index >= CPROBE_TIMER_SETS || thread < 0 || thread >= CPROBE_TIMER_THREADS) return EINVAL;
    if (interval_ns == 0) return EINVAL;
    // MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED) from the kernel's posix-timers.h: the thread's
    // CPU clock, any thread of this process (pthread_getcpuclockid wants a pthread_t).
    clockid_t clock = (clockid_t)((~(unsigned)tid << 3) | 6);
    struct sigevent event;
    memset(&event, 0, sizeof event);
    event.sigev_notify = SIGEV_THREAD_ID;
    event.sigev_signo = signo;
    event.sigev_value.sival_ptr = signal_value(index, thread);
    event._sigev_un._tid = tid;
    int created = -1;
    if (syscall(SYS_timer_create, clock, &event, &created) != 0) return errno;
    struct itimerspec period = {
        .it_interval = {(time_t)(interval_ns / 1000000000ULL), (long)(interval_ns % 1000000000ULL)},
        .it_value = {(time_t)(interval_ns / 1000000000ULL), (long)(interval_ns % 1000000000ULL)},
    };
    if (syscall(SYS_timer_settime, created, 0, &period, NULL) != 0) {
        int error = errno;
        syscall(SYS_timer_delete, created);
        return error;
    }
    *timer = created;
    return 0;
}

int cprobe_timer_disarm(int timer) { return syscall(SYS_timer_delete, timer) == 0 ? 0 : errno; }

int cprobe_timer_handle(int signo, const void *raw_info, void *context) {
    (void)signo;
    const siginfo_t *info = raw_info;
    if (info->si_code != SI_TIMER) return 0;
    uint64_t value = (uint64_t)(uintptr_t)info->si_value.sival_ptr;
    if ((value >> 48) != TIMER_MAGIC) return 0;
    unsigned index = (unsigned)((value >> 20) & 0xf);
    if (index >= CPROBE_TIMER_SETS) return 1;
    timer_set *set = &sets[index];
    uint32_t expirations = 1 + (uint32_t)(info->si_overrun > 0 ? info->si_overrun : 0);
    atomic_fetch_add(&set->writers, 1);
    if (atomic_load(&set->generation) != (uint32_t)((value >> 24) & GENERATION_BITS) || !set->cells) {
        atomic_fetch_sub(&set->writers, 1);
        return 1;
    }
    uint64_t position = atomic_load_explicit(&set->head, memory_order_relaxed);
    ring_cell *cell;
    for (;;) {
        cell = &set->cells[position % CPROBE_TIMER_RING];
        uint64_t sequence = atomic_load_explicit(&cell->sequence, memory_order_acquire);
        int64_t difference = (int64_t)(sequence - position);
        if (difference == 0) {
            if (atomic_compare_exchange_weak_explicit(&set->head, &position, position + 1, memory_order_relaxed,
                                                      memory_order_relaxed)) {
                break;
            }
        } else if (difference < 0) {  // full: the drainer is behind
            atomic_fetch_add(&set->dropped, 1);
            atomic_fetch_add(&set->dropped_expirations, expirations);
            atomic_fetch_sub(&set->writers, 1);
            return 1;
        } else {
            position = atomic_load_explicit(&set->head, memory_order_relaxed);
        }
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    cprobe_timer_sample *sample = &cell->sample;
    sample->thread = (int32_t)(value & 0xfffff);
    sample->expirations = expirations;
    sample->time_ns = (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
    int steps = 0;
    sample->depth =
        cprobe_unwind_context(context, CPROBE_UNWIND_FRAME_POINTERS, sample->pcs, CPROBE_TIMER_FRAMES, &steps);
    sample->libunwind_steps = steps;
    atomic_store_explicit(&cell->sequence, position + 1, memory_order_release);
    atomic_fetch_sub(&set->writers, 1);
    return 1;
}

int cprobe_timer_drain(int index, cprobe_timer_sample *out, int capacity) {
    if (index < 0 || index >= CPROBE_TIMER_SETS || !sets[index].cells) return 0;
    timer_set *set = &sets[index];
    int count = 0;
    while (count < capacity) {
        ring_cell *cell = &set->cells[set->tail % CPROBE_TIMER_RING];
        if (atomic_load_explicit(&cell->sequence, memory_order_acquire) != set->tail + 1) break;
        int depth = cell->sample.depth;
        memcpy(&out[count], &cell->sample, offsetof(cprobe_timer_sample, pcs) + (size_t)depth * sizeof(uintptr_t));
        atomic_store_explicit(&cell->sequence, set->tail + CPROBE_TIMER_RING, memory_order_release);
        set->tail++;
        count++;
    }
    return count;
}

void cprobe_timer_dropped(int index, uint64_t *samples, uint64_t *expirations) {
    if (index < 0 || index >= CPROBE_TIMER_SETS) {
        *samples = 0;
        *expirations = 0;
        return;
    }
    *samples = atomic_load(&sets[index].dropped);
    *expirations = atomic_load(&sets[index].dropped_expirations);
}
