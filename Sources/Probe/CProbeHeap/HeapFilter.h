// The sampled addresses' filter, shared by HeapSampler.c (which counts) and HeapAllocator.c (which
// reads it inline on every free). Not in include/: Swift would import the array as a 65,536-tuple.

#ifndef CPROBE_HEAP_FILTER_H
#define CPROBE_HEAP_FILTER_H

#include <stdint.h>

/// Per hash of an address, how many sampled addresses have it (255 sticks): 64 KiB, so that a free
/// reads one byte that is mostly in cache instead of probing the 1 MiB address table.
#define CPROBE_HEAP_FILTER_SIZE 65536
extern uint8_t cprobe_heap_filter[CPROBE_HEAP_FILTER_SIZE];

/// The filter byte of `address`: allocations are 16-byte aligned, so the low four bits say nothing.
static inline uint32_t cprobe_heap_filter_index(uintptr_t address) {
    return (uint32_t)(((uint64_t)address >> 4) * 0x9E3779B97F4A7C15ull >> 48);
}

_Static_assert(CPROBE_HEAP_FILTER_SIZE == 1 << 16, "the index is the product's top 16 bits");

#endif
