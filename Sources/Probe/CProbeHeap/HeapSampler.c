// The heap sampler behind HeapInterposer.c: which allocations are sampled, where each came from,
// and which of them are still in use.
//
// Go's method (runtime/mprof.go, MemProfileRate): each thread counts allocated bytes down from an
// exponentially distributed start (mean `interval`), and the allocation that crosses zero is
// sampled, so an allocation of s bytes is sampled with probability 1 - exp(-s / interval), and a
// sample stands for 1 / that many allocations. A sample keeps its stack (frame records, async chains
// where a task runs) in a site, one per distinct stack and thread; its address goes into a table
// that its free looks up, so the site's in-use figures drop when it is freed. A free looks in a
// 64 KiB filter first (one byte per address hash, counting the sampled addresses there): nearly every
// free finds zero and ends, instead of probing the 1 MiB table (docs/probe-in-a-server.md, "What the
// heap sampler costs": +5% of an allocation-heavy route's throughput before, with HeapAllocator.c's
// branches still out of line; +0.01% [-2.5, +2.4] after both).
//
// Nothing here takes a lock or calls malloc while it samples: both tables are fixed, mapped once
// and claimed with compare-and-swap, so an allocation from a signal handler, from another thread
// stopped in the middle of a sample, or in a child after fork never waits. A thread that allocates
// while it samples (attaching itself to the unwinder reads its stack bounds) is not sampled again.

#define _GNU_SOURCE
#include "CProbeHeap.h"
#include "HeapFilter.h"

#include "FramePointerUnwind.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

// 8,192 sites of ~600 bytes (4.9 MB of address space), filled in order as sites appear, so they
// touch their pages in order too (placed by hash, a service's sites kept touching new pages for
// half an hour: +1.4 MB in a soak, 2026-12-05), found through a table of 8,192 keys (96 KiB); and
// 65,536 sampled addresses of 16 bytes (1 MiB): at 512 KiB a sample, 65,536 live samples are 32 GiB.
#define SITE_COUNT 8192
#define SITE_PROBES 64
#define SLOT_COUNT 65536
#define SLOT_PROBES 32
// The sampler's own frames, both noinline: record_sample and cprobe_heap_sampled. The allocation
// function's frames above them vary with the compiler (clang splits a cold part of
// cprobe_heap_malloc into a function of its own): the profile leaves those out by name.
#define OWN_FRAMES 2

_Static_assert((SITE_COUNT & (SITE_COUNT - 1)) == 0, "site table size is a power of two");
_Static_assert((SLOT_COUNT & (SLOT_COUNT - 1)) == 0, "address table size is a power of two");
_Static_assert(SITE_COUNT <= (1 << 13), "a slot keeps its site index in 13 bits");

typedef struct {
    // 0: not yet written; otherwise the site's hash, published once the rest is in place.
    _Atomic uint64_t key;
    uint32_t depth;
    int32_t tid;
    char thread_name[16];
    _Atomic uintptr_t type_candidate;
    _Atomic uint64_t samples, alloc_objects_1024, alloc_bytes, free_objects_1024, free_bytes;
    uintptr_t pcs[CPROBE_HEAP_FRAMES];
} site;

typedef struct {
    _Atomic uintptr_t address;  // 0: empty; TOMBSTONE: freed (probes go on past it)
    _Atomic uint64_t meta;      // size << 13 | site index
} slot;

#define TOMBSTONE ((uintptr_t)1)

int cprobe_heap_on;
// Sampled addresses per hash (HeapAllocator.c reads it inline on every free); 255 sticks.
uint8_t cprobe_heap_filter[CPROBE_HEAP_FILTER_SIZE];
static _Atomic uint64_t interval;
// Bumped at each start: a thread whose state is from an earlier run draws a fresh countdown.
static _Atomic uint64_t epoch;
// A key slot: 0 empty; 1 being written; otherwise the site's hash, published once `site` is set.
typedef struct {
    _Atomic uint64_t hash;
    uint32_t site;
} site_key;

static site *sites;
static site_key *site_keys;
// Sites taken, in order: each key slot claimed takes the next, so never more than SITE_COUNT.
static _Atomic uint32_t sites_taken;
static slot *slots;
static _Atomic uint64_t sample_count, live_count, dropped_sites, untracked_addresses;

typedef struct {
    uint64_t epoch;
    uint64_t random;
    int32_t tid;
    int busy;
} thread_state;

static __thread __attribute__((tls_model("initial-exec"))) thread_state this_thread;

// MARK: - Starting and stopping

int cprobe_heap_start(uint64_t mean_interval) {
    if (mean_interval == 0) {
        cprobe_heap_stop();
        return 0;
    }
    if (!sites) {
        void *site_memory = mmap(NULL, sizeof(site) * SITE_COUNT, PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (site_memory == MAP_FAILED) return -1;
        void *key_memory = mmap(NULL, sizeof(site_key) * SITE_COUNT, PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        void *slot_memory = key_memory == MAP_FAILED
            ? MAP_FAILED
            : mmap(NULL, sizeof(slot) * SLOT_COUNT, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (slot_memory == MAP_FAILED) {
            int saved = errno;
            munmap(site_memory, sizeof(site) * SITE_COUNT);
            if (key_memory != MAP_FAILED) munmap(key_memory, sizeof(site_key) * SITE_COUNT);
            errno = saved;
            return -1;
        }
        sites = site_memory;
        site_keys = key_memory;
        slots = slot_memory;
    } else {
        __atomic_store_n(&cprobe_heap_on, 0, __ATOMIC_SEQ_CST);
        // A sample that began before the stop has had 20 ms to finish (a sample takes microseconds):
        // the tables are then zeroed (and their pages given back) with nobody writing.
        struct timespec pause = {.tv_sec = 0, .tv_nsec = 20 * 1000 * 1000};
        nanosleep(&pause, NULL);
        madvise(sites, sizeof(site) * SITE_COUNT, MADV_DONTNEED);
        madvise(site_keys, sizeof(site_key) * SITE_COUNT, MADV_DONTNEED);
        madvise(slots, sizeof(slot) * SLOT_COUNT, MADV_DONTNEED);
        atomic_store(&sites_taken, 0);
        memset(cprobe_heap_filter, 0, sizeof cprobe_heap_filter);
    }
    atomic_store(&sample_count, 0);
    atomic_store(&live_count, 0);
    atomic_store(&dropped_sites, 0);
    atomic_store(&untracked_addresses, 0);
    atomic_store(&interval, mean_interval);
    atomic_fetch_add(&epoch, 1);
    __atomic_store_n(&cprobe_heap_on, 1, __ATOMIC_SEQ_CST);
    return 0;
}

void cprobe_heap_stop(void) {
    __atomic_store_n(&cprobe_heap_on, 0, __ATOMIC_SEQ_CST);
    atomic_store(&interval, 0);
}

uint64_t cprobe_heap_interval(void) {
    return __atomic_load_n(&cprobe_heap_on, __ATOMIC_RELAXED) ? atomic_load(&interval) : 0;
}

// MARK: - The sampled path

// xorshift64*: a thread's own sequence, seeded from its id and the clock.
static uint64_t next_random(thread_state *t) {
    uint64_t x = t->random;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    t->random = x;
    return x * 2685821657736338717ull;
}

// Bytes until the next sample: exponential with mean `interval`, at least 1.
static int64_t next_countdown(thread_state *t) {
    double mean = (double)atomic_load_explicit(&interval, memory_order_relaxed);
    if (mean <= 0) return INT64_MAX;
    double uniform = ((double)(next_random(t) >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
    double bytes = -log(uniform) * mean;
    if (bytes < 1) return 1;
    if (bytes > 0x1p62) return (int64_t)1 << 62;
    return (int64_t)bytes;
}

// 1 / P(sampled) of an allocation of `size` bytes: what one sample of it stands for.
static double weight(uint64_t size) {
    double mean = (double)atomic_load_explicit(&interval, memory_order_relaxed);
    if (mean <= 0) return 1;
    double p = -expm1(-(double)(size ? size : 1) / mean);
    return p > 0 ? 1 / p : 1;
}

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

// The site of this stack on this thread, added when new; -1 when every slot it may take is taken.
static int find_site(const uintptr_t *pcs, uint32_t depth, int32_t tid) {
    uint64_t hash = mix((uint64_t)tid + depth);
    for (uint32_t i = 0; i < depth; i++) hash = mix(hash ^ pcs[i]);
    if (hash < 2) hash += 2;
    for (int probe = 0; probe < SITE_PROBES; probe++) {
        site_key *k = &site_keys[(hash + (uint64_t)probe) & (SITE_COUNT - 1)];
        uint64_t key = atomic_load_explicit(&k->hash, memory_order_acquire);
        if (key == 0) {
            uint64_t empty = 0;
            if (atomic_compare_exchange_strong(&k->hash, &empty, 1)) {
                // One key slot claimed, one site taken: at most SITE_COUNT of either.
                uint32_t index = atomic_fetch_add_explicit(&sites_taken, 1, memory_order_relaxed);
                site *s = &sites[index];
                s->depth = depth;
                s->tid = tid;
                memcpy(s->pcs, pcs, depth * sizeof pcs[0]);
                prctl(PR_GET_NAME, s->thread_name, 0, 0, 0);
                atomic_store_explicit(&s->key, hash, memory_order_release);
                k->site = index;
                atomic_store_explicit(&k->hash, hash, memory_order_release);
                return (int)index;
            }
            key = empty;
            if (key == 1) continue;
            atomic_thread_fence(memory_order_acquire);
        }
        if (key != hash) continue;
        site *s = &sites[k->site];
        if (s->tid == tid && s->depth == depth && memcmp(s->pcs, pcs, depth * sizeof pcs[0]) == 0) {
            return (int)k->site;
        }
    }
    return -1;
}

// Counts one sampled address more (+1) or less (-1) in the filter; a byte that reached 255 stays
// there (its frees always look in the table).
static void filter_count(uintptr_t address, int change) {
    uint8_t *counter = &cprobe_heap_filter[cprobe_heap_filter_index(address)];
    uint8_t value = __atomic_load_n(counter, __ATOMIC_RELAXED);
    while (value != 255 && !(change < 0 && value == 0)) {
        if (__atomic_compare_exchange_n(counter, &value, (uint8_t)(value + change), 1, __ATOMIC_RELAXED,
                __ATOMIC_RELAXED)) {
            return;
        }
    }
}

static int track(uintptr_t address, uint64_t size, int site_index) {
    uint64_t start = mix(address);
    for (int probe = 0; probe < SLOT_PROBES; probe++) {
        slot *s = &slots[(start + (uint64_t)probe) & (SLOT_COUNT - 1)];
        uintptr_t held = atomic_load_explicit(&s->address, memory_order_relaxed);
        if (held != 0 && held != TOMBSTONE) continue;
        // The address is this thread's until its allocation returns: nobody frees it meanwhile, so
        // nobody reads `meta` before it is written.
        if (atomic_compare_exchange_strong(&s->address, &held, address)) {
            atomic_store_explicit(&s->meta, size << 13 | (uint64_t)site_index, memory_order_release);
            // Before malloc returns the address: whoever frees it later sees the count.
            filter_count(address, +1);
            return 1;
        }
    }
    return 0;
}

// Takes `address` out of the table: 1 with its meta when it was sampled.
static int untrack(uintptr_t address, uint64_t *meta) {
    uint64_t start = mix(address);
    for (int probe = 0; probe < SLOT_PROBES; probe++) {
        slot *s = &slots[(start + (uint64_t)probe) & (SLOT_COUNT - 1)];
        uintptr_t held = atomic_load_explicit(&s->address, memory_order_acquire);
        if (held == 0) return 0;
        if (held != address) continue;
        *meta = atomic_load_explicit(&s->meta, memory_order_acquire);
        // The end of a probe chain may go back to empty; inside one it must stay a tombstone.
        slot *next = &slots[(start + (uint64_t)probe + 1) & (SLOT_COUNT - 1)];
        uintptr_t after = atomic_load_explicit(&next->address, memory_order_relaxed) == 0 ? 0 : TOMBSTONE;
        if (!atomic_compare_exchange_strong(&s->address, &held, after)) return 0;
        filter_count(address, -1);
        return 1;
    }
    return 0;
}

__attribute__((noinline)) static void record_sample(uintptr_t address, uint64_t size) {
    uintptr_t pcs[CPROBE_HEAP_FRAMES + OWN_FRAMES];
    int depth = cprobe_unwind_here(pcs, CPROBE_HEAP_FRAMES + OWN_FRAMES) - OWN_FRAMES;
    if (depth < 0) depth = 0;
    int index = find_site(pcs + OWN_FRAMES, (uint32_t)depth, this_thread.tid);
    atomic_fetch_add_explicit(&sample_count, 1, memory_order_relaxed);
    if (index < 0) {
        atomic_fetch_add_explicit(&dropped_sites, 1, memory_order_relaxed);
        return;
    }
    site *s = &sites[index];
    double w = weight(size);
    uint64_t objects = (uint64_t)llround(w * 1024), bytes = (uint64_t)llround(w * (double)size);
    atomic_fetch_add_explicit(&s->samples, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->alloc_objects_1024, objects, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->alloc_bytes, bytes, memory_order_relaxed);
    if (address && size < ((uint64_t)1 << 50) && track(address, size, index)) {
        atomic_fetch_add_explicit(&live_count, 1, memory_order_relaxed);
    } else {
        // Never in use as far as the profile knows: counted freed at once rather than forever live.
        atomic_fetch_add_explicit(&untracked_addresses, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&s->free_objects_1024, objects, memory_order_relaxed);
        atomic_fetch_add_explicit(&s->free_bytes, bytes, memory_order_relaxed);
    }
}

__attribute__((noinline)) int64_t cprobe_heap_sampled(void *address, size_t size) {
    thread_state *t = &this_thread;
    uint64_t now = atomic_load_explicit(&epoch, memory_order_relaxed);
    if (t->busy) return next_countdown(t);
    if (t->epoch != now) {
        // This thread's first allocation in this run: seed and draw, nothing recorded (its countdown
        // started at an earlier run's value or at zero).
        if (t->tid == 0) t->tid = (int32_t)syscall(SYS_gettid);
        struct timespec clock;
        clock_gettime(CLOCK_MONOTONIC, &clock);
        t->random = mix((uint64_t)t->tid << 32 ^ (uint64_t)clock.tv_nsec ^ now) | 1;
        t->epoch = now;
        return next_countdown(t);
    }
    t->busy = 1;
    record_sample((uintptr_t)address, size);
    t->busy = 0;
    return next_countdown(t);
}

void cprobe_heap_seed_random(uint64_t seed) {
    thread_state *t = &this_thread;
    if (t->tid == 0) t->tid = (int32_t)syscall(SYS_gettid);
    t->random = mix(seed) | 1;
    t->epoch = atomic_load(&epoch);
}

void cprobe_heap_freeing(void *address) {
    if (atomic_load_explicit(&live_count, memory_order_relaxed) == 0 || !slots) return;
    uint64_t meta;
    if (!untrack((uintptr_t)address, &meta) || meta == 0) return;
    atomic_fetch_sub_explicit(&live_count, 1, memory_order_relaxed);
    site *s = &sites[meta & (SITE_COUNT - 1)];
    uint64_t size = meta >> 13;
    // Still the allocation's own memory: a Swift object's first word is its metadata.
    uintptr_t first = *(const uintptr_t *)address, none = 0;
    atomic_compare_exchange_strong(&s->type_candidate, &none, first);
    double w = weight(size);
    atomic_fetch_add_explicit(&s->free_objects_1024, (uint64_t)llround(w * 1024), memory_order_relaxed);
    atomic_fetch_add_explicit(&s->free_bytes, (uint64_t)llround(w * (double)size), memory_order_relaxed);
}

// MARK: - Listing

int cprobe_heap_site_capacity(void) {
    uint32_t taken = sites ? atomic_load_explicit(&sites_taken, memory_order_acquire) : 0;
    return (int)(taken < SITE_COUNT ? taken : SITE_COUNT);
}

int cprobe_heap_read_site(int index, cprobe_heap_site *out) {
    if (!sites || index < 0 || index >= SITE_COUNT) return 0;
    site *s = &sites[index];
    if (atomic_load_explicit(&s->key, memory_order_acquire) < 2) return 0;
    out->depth = s->depth;
    out->tid = s->tid;
    memcpy(out->thread_name, s->thread_name, sizeof out->thread_name);
    out->thread_name[sizeof out->thread_name - 1] = 0;
    out->type_candidate = atomic_load_explicit(&s->type_candidate, memory_order_relaxed);
    out->samples = atomic_load_explicit(&s->samples, memory_order_relaxed);
    // Frees first: a free counted after its allocation was read would make in-use negative.
    out->free_objects_1024 = atomic_load_explicit(&s->free_objects_1024, memory_order_acquire);
    out->free_bytes = atomic_load_explicit(&s->free_bytes, memory_order_acquire);
    out->alloc_objects_1024 = atomic_load_explicit(&s->alloc_objects_1024, memory_order_acquire);
    out->alloc_bytes = atomic_load_explicit(&s->alloc_bytes, memory_order_acquire);
    memcpy(out->pcs, s->pcs, sizeof out->pcs);
    return 1;
}

void cprobe_heap_note_live_types(void) {
    if (!slots) return;
    pid_t pid = getpid();
    for (int i = 0; i < SLOT_COUNT; i++) {
        uintptr_t address = atomic_load_explicit(&slots[i].address, memory_order_acquire);
        if (address == 0 || address == TOMBSTONE) continue;
        uint64_t meta = atomic_load_explicit(&slots[i].meta, memory_order_acquire);
        if (meta == 0) continue;
        site *s = &sites[meta & (SITE_COUNT - 1)];
        if (atomic_load_explicit(&s->type_candidate, memory_order_relaxed) != 0) continue;
        uintptr_t first = 0, none = 0;
        struct iovec local = {.iov_base = &first, .iov_len = sizeof first};
        struct iovec remote = {.iov_base = (void *)address, .iov_len = sizeof first};
        if (syscall(SYS_process_vm_readv, (long)pid, &local, 1L, &remote, 1L, 0L) != (long)sizeof first) continue;
        atomic_compare_exchange_strong(&s->type_candidate, &none, first);
    }
}

void cprobe_heap_read_counts(cprobe_heap_counts *out) {
    out->samples = atomic_load(&sample_count);
    out->live = atomic_load(&live_count);
    out->dropped_sites = atomic_load(&dropped_sites);
    out->untracked_addresses = atomic_load(&untracked_addresses);
}
