#ifndef CPROBE_HEAP_H
#define CPROBE_HEAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Most frames a heap sample keeps (its allocating function first).
#define CPROBE_HEAP_FRAMES 64

/// Starts sampling allocations, one every `mean_interval` bytes on average (exponential spacing),
/// with fresh tables: what an earlier run counted is gone. Returns 0, or -1 when the tables
/// cannot be mapped (errno set).
int cprobe_heap_start(uint64_t mean_interval);
/// Stops sampling; the tables keep what was counted until the next start.
void cprobe_heap_stop(void);
/// The running mean interval in bytes, or 0 when stopped.
uint64_t cprobe_heap_interval(void);

/// For benchmarks: this thread's countdown from `seed` in the running epoch, so the same
/// allocations are sampled at the same places run after run.
void cprobe_heap_seed_thread(uint64_t seed);

/// One allocation site: a stack on one thread, and what was sampled there, scaled to estimates of
/// the whole (each sample of `size` bytes stands for 1 / (1 - exp(-size / interval)) allocations).
typedef struct {
    uint32_t depth;
    int32_t tid;
    char thread_name[16];
    /// The first word of a sampled allocation from here (a Swift object's metadata), read at its
    /// free or at a listing; 0 when none was read yet.
    uintptr_t type_candidate;
    uint64_t samples;
    /// Estimated allocations and bytes, objects in 1/1024ths.
    uint64_t alloc_objects_1024, alloc_bytes;
    uint64_t free_objects_1024, free_bytes;
    /// Return addresses, innermost (the allocating function) first; async resume points tagged.
    uintptr_t pcs[CPROBE_HEAP_FRAMES];
} cprobe_heap_site;

/// How many sites have been taken so far (a listing reads indices 0..<capacity; one still being
/// written reads as absent).
int cprobe_heap_site_capacity(void);
/// Copies site `index` into `out`: 1 when the slot holds a site, 0 when empty.
int cprobe_heap_read_site(int index, cprobe_heap_site *out);

/// Reads the first word of every sampled allocation still in use into its site's type candidate
/// (through process_vm_readv: an allocation freed meanwhile is skipped, never read in place).
void cprobe_heap_note_live_types(void);

/// What the sampler met since it started.
typedef struct {
    uint64_t samples;
    /// Allocations in use among the sampled.
    uint64_t live;
    /// Samples not kept: every site slot taken (8,192), or no room to track the address.
    uint64_t dropped_sites, untracked_addresses;
} cprobe_heap_counts;
void cprobe_heap_read_counts(cprobe_heap_counts *out);

/// glibc's allocation functions with the sampler's counting (HeapAllocator.c): what the
/// executable's `malloc`, `free`, … are when it links ProbeHeap (CProbeHeapInterposer), and what the
/// benchmarks call.
void *cprobe_heap_malloc(size_t size);
void *cprobe_heap_calloc(size_t count, size_t size);
void cprobe_heap_free(void *address);
void *cprobe_heap_realloc(void *address, size_t size);
void *cprobe_heap_reallocarray(void *address, size_t count, size_t size);
void *cprobe_heap_memalign(size_t alignment, size_t size);
void *cprobe_heap_aligned_alloc(size_t alignment, size_t size);
int cprobe_heap_posix_memalign(void **out, size_t alignment, size_t size);
void *cprobe_heap_valloc(size_t size);
void *cprobe_heap_pvalloc(size_t size);

/// For HeapAllocator.c only: the sampled path of an allocation of `size` bytes
/// at `address` (may be NULL), returning the next countdown; and the path of a free while sampling.
int64_t cprobe_heap_sampled(void *address, size_t size);
void cprobe_heap_freeing(void *address);
void cprobe_heap_seed_random(uint64_t seed);
/// Nonzero while sampling (relaxed reads: a thread that sees it late misses one allocation).
extern int cprobe_heap_on;

#ifdef __cplusplus
}
#endif

#endif
