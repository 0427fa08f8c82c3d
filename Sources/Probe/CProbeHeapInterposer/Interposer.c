// glibc's allocation functions, replaced in the executable that links ProbeHeap: the dynamic
// linker binds every library's `malloc` (libswiftCore's, libc's own, Foundation's) to the
// executable's definition first, and glibc supports replacing them (its manual, "Replacing
// malloc"). Each jumps to its counting twin in CProbeHeap (a tail call even at -O0: `musttail`),
// so a sample's stack has no frame of this file. A target of its own: perfkit's benchmarks link
// the sampler without it, and keep LD_PRELOAD's malloc-interposer for `--allocations`.

#define _GNU_SOURCE
#include "CProbeHeap.h"
#include "CProbeHeapInterposer.h"

#include <dlfcn.h>
#include <stddef.h>

#define FORWARD(call) __attribute__((musttail)) return call

void *malloc(size_t size) { FORWARD(cprobe_heap_malloc(size)); }
void *calloc(size_t count, size_t size) { FORWARD(cprobe_heap_calloc(count, size)); }
void free(void *address) { FORWARD(cprobe_heap_free(address)); }
void *realloc(void *address, size_t size) { FORWARD(cprobe_heap_realloc(address, size)); }
void *reallocarray(void *address, size_t count, size_t size) { FORWARD(cprobe_heap_reallocarray(address, count, size)); }
void *memalign(size_t alignment, size_t size) { FORWARD(cprobe_heap_memalign(alignment, size)); }
void *aligned_alloc(size_t alignment, size_t size) { FORWARD(cprobe_heap_aligned_alloc(alignment, size)); }
int posix_memalign(void **out, size_t alignment, size_t size) { FORWARD(cprobe_heap_posix_memalign(out, alignment, size)); }
void *valloc(size_t size) { FORWARD(cprobe_heap_valloc(size)); }
void *pvalloc(size_t size) { FORWARD(cprobe_heap_pvalloc(size)); }

// This file's own malloc, whatever the dynamic linker binds the name to.
extern void *own_malloc(size_t size) __attribute__((alias("malloc"), visibility("hidden")));

int cprobe_heap_interposed(void) { return dlsym(RTLD_DEFAULT, "malloc") == (void *)&own_malloc; }
