#ifndef CPIXELCOPY_H
#define CPIXELCOPY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Copies `count` bytes with non-temporal (streaming) stores where the target is 16-byte aligned:
/// the destination lines are written without first being read into the cache, which is how
/// glibc's memset fills large buffers. Swift has no way to emit these stores, hence C.
/// Call `pixelcopy_store_fence` before other threads read what was written.
void pixelcopy_stream(void *destination, const void *source, size_t count);

/// Orders the streaming stores of the calling thread before its later stores.
void pixelcopy_store_fence(void);

#ifdef __cplusplus
}
#endif

#endif
