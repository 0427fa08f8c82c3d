#define _GNU_SOURCE
#include "CProbeBenchmarks.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

// The cycle counter, not clock_gettime: a clock read would put the interrupted instruction inside
// the vDSO, whose frames need libunwind, and the sample being measured would cost more than a
// sample of ordinary code. Both counters below tick at a constant rate on every core.
static inline uint64_t ticks(void) {
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    uint64_t value;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(value));
    return value;
#else
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
#endif
}

static uint64_t monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
}

enum { GAP_BUCKETS = 2000, GAP_BUCKET_NS = 100 };

struct cprobe_lost_time_spinner {
    _Atomic int stop;
    _Atomic uint64_t gaps;
    uint64_t threshold_ticks;
    uint64_t descheduled_ticks;  // 200 µs: longer gaps are the scheduler's, not a signal's
    double ns_per_tick;
    // Gaps by length, 100 ns per bucket up to 200 µs: the median is robust to the odd long gap
    // (a preemption just under the cut) that would move a mean.
    _Atomic uint32_t histogram[GAP_BUCKETS];
};

cprobe_lost_time_spinner *cprobe_lost_time_spinner_create(void) {
    cprobe_lost_time_spinner *spinner = calloc(1, sizeof *spinner);
    if (!spinner) return NULL;
    // The counter's rate from a 2 ms look; the gaps counted start at half a microsecond: far above
    // one loop turn, far below a signal's delivery.
    uint64_t start_ns = monotonic_ns(), start_ticks = ticks(), now_ns;
    while ((now_ns = monotonic_ns()) - start_ns < 2000000) {
    }
    uint64_t elapsed_ticks = ticks() - start_ticks;
    spinner->ns_per_tick = elapsed_ticks > 0 ? (double)(now_ns - start_ns) / (double)elapsed_ticks : 1.0;
    spinner->threshold_ticks = (uint64_t)(500.0 / spinner->ns_per_tick) + 1;
    spinner->descheduled_ticks = spinner->threshold_ticks * 400;
    return spinner;
}

__attribute__((noinline)) void cprobe_lost_time_spinner_run(cprobe_lost_time_spinner *spinner) {
    uint64_t threshold = spinner->threshold_ticks, descheduled = spinner->descheduled_ticks;
    double bucket_per_tick = spinner->ns_per_tick / GAP_BUCKET_NS;
    uint64_t previous = ticks();
    uint64_t gaps = 0;
    while (!atomic_load_explicit(&spinner->stop, memory_order_relaxed)) {
        uint64_t now = ticks();
        if (now - previous > threshold && now - previous < descheduled) {
            gaps++;
            atomic_store_explicit(&spinner->gaps, gaps, memory_order_relaxed);
            uint64_t bucket = (uint64_t)((double)(now - previous) * bucket_per_tick);
            if (bucket >= GAP_BUCKETS) bucket = GAP_BUCKETS - 1;
            atomic_fetch_add_explicit(&spinner->histogram[bucket], 1, memory_order_relaxed);
        }
        previous = now;
    }
}

void cprobe_lost_time_spinner_stop(cprobe_lost_time_spinner *spinner) {
    atomic_store_explicit(&spinner->stop, 1, memory_order_relaxed);
}

double cprobe_lost_time_spinner_median_gap_ns(cprobe_lost_time_spinner *spinner) {
    uint64_t counts[GAP_BUCKETS], total = 0;
    for (int i = 0; i < GAP_BUCKETS; i++) {
        counts[i] = atomic_load_explicit(&spinner->histogram[i], memory_order_relaxed);
        total += counts[i];
    }
    if (total == 0) return 0;
    uint64_t seen = 0;
    for (int i = 0; i < GAP_BUCKETS; i++) {
        seen += counts[i];
        if (2 * seen >= total) return ((double)i + 0.5) * GAP_BUCKET_NS;
    }
    return 0;
}

uint64_t cprobe_lost_time_spinner_gaps(cprobe_lost_time_spinner *spinner) {
    return atomic_load_explicit(&spinner->gaps, memory_order_relaxed);
}

void cprobe_lost_time_spinner_destroy(cprobe_lost_time_spinner *spinner) { free(spinner); }
