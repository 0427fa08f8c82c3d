// glibc's allocation functions with the heap sampler's counting: CProbeHeapInterposer's `malloc`,
// `free`, … jump here (so do the benchmarks, which must not replace perfkit's own malloc). Each
// forwards to glibc's implementation (`__libc_malloc`, …), so the memory, its
// `malloc_usable_size` and `malloc_trim` stay glibc's.
//
// Cost: while no heap profiler runs, one load and one branch before glibc's function; while one
// runs, a thread-local countdown of bytes too, and per free one byte of the sampled addresses' filter
// (the table itself only when that byte is not zero).

#define _GNU_SOURCE
#include "CProbeHeap.h"
#include "HeapFilter.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#if !defined(__GLIBC__)
#error "ProbeHeap forwards to glibc's allocator functions: Linux with glibc only"
#endif

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *address, size_t size);
extern void __libc_free(void *address);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

// Bytes this thread may still allocate before its next sample (HeapSampler.c draws it).
// initial-exec: in the executable's static TLS block, so reading it never allocates.
static __thread __attribute__((tls_model("initial-exec"))) int64_t countdown;

// No __builtin_expect: with it clang moves the whole sampling branch out of line, a call per use.
#define SAMPLING() __atomic_load_n(&cprobe_heap_on, __ATOMIC_RELAXED)

// Whether `address` may be a sampled one: its filter byte counts sampled addresses with its hash.
#define MAYBE_SAMPLED(address) \
    __builtin_expect(__atomic_load_n(&cprobe_heap_filter[cprobe_heap_filter_index((uintptr_t)(address))], \
                         __ATOMIC_RELAXED) != 0, 0)

static inline __attribute__((always_inline)) void count(void *address, size_t size) {
    if (__builtin_expect((countdown -= (int64_t)size) < 0, 0)) countdown = cprobe_heap_sampled(address, size);
}

// musttail: otherwise clang calls glibc once for both branches and tests the flag afterwards, and
// the path while stopped is no longer a tail call.
void *cprobe_heap_malloc(size_t size) {
    if (!SAMPLING()) __attribute__((musttail)) return __libc_malloc(size);
    void *address = __libc_malloc(size);
    count(address, size);
    return address;
}

void *cprobe_heap_calloc(size_t count_, size_t size) {
    if (!SAMPLING()) __attribute__((musttail)) return __libc_calloc(count_, size);
    void *address = __libc_calloc(count_, size);
    if (address) count(address, count_ * size);  // no overflow: glibc refused that
    return address;
}

void cprobe_heap_free(void *address) {
    if (SAMPLING() && address && MAYBE_SAMPLED(address)) cprobe_heap_freeing(address);
    __libc_free(address);
}

// The old block is forgotten before glibc may hand its address to another thread. When realloc
// fails the old block lives on unsampled: the profile undercounts it, never counts it twice.
// Inlined into each public function, so a sample's stack has one frame of this file above the caller.
static inline __attribute__((always_inline)) void *sampled_realloc(void *address, size_t size) {
    if (!SAMPLING()) return __libc_realloc(address, size);
    if (address && MAYBE_SAMPLED(address)) cprobe_heap_freeing(address);
    void *moved = __libc_realloc(address, size);
    if (moved) count(moved, size);
    return moved;
}

static inline __attribute__((always_inline)) void *sampled_memalign(size_t alignment, size_t size) {
    void *address = __libc_memalign(alignment, size);
    if (SAMPLING() && address) count(address, size);
    return address;
}

void *cprobe_heap_realloc(void *address, size_t size) { return sampled_realloc(address, size); }

void *cprobe_heap_reallocarray(void *address, size_t count_, size_t size) {
    size_t bytes;
    if (__builtin_mul_overflow(count_, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return sampled_realloc(address, bytes);
}

void *cprobe_heap_memalign(size_t alignment, size_t size) { return sampled_memalign(alignment, size); }

// glibc's checks: a power of two; posix_memalign's also a multiple of sizeof(void *).
void *cprobe_heap_aligned_alloc(size_t alignment, size_t size) {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        errno = EINVAL;
        return NULL;
    }
    return sampled_memalign(alignment, size);
}

int cprobe_heap_posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || alignment == 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    int saved = errno;
    void *address = sampled_memalign(alignment, size);
    if (!address) return ENOMEM;
    errno = saved;
    *out = address;
    return 0;
}

void *cprobe_heap_valloc(size_t size) {
    void *address = __libc_valloc(size);
    if (SAMPLING() && address) count(address, size);
    return address;
}

void *cprobe_heap_pvalloc(size_t size) {
    void *address = __libc_pvalloc(size);
    if (SAMPLING() && address) count(address, size);
    return address;
}

void cprobe_heap_seed_thread(uint64_t seed) {
    countdown = 0;
    cprobe_heap_seed_random(seed);
}
