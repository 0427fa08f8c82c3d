#include "CPixelCopy.h"

#include <stdint.h>
#include <string.h>

typedef long long pixelcopy_v2 __attribute__((vector_size(16)));

void pixelcopy_stream(void *destination, const void *source, size_t count) {
    uint8_t *out = destination;
    const uint8_t *in = source;
    size_t head = (16 - ((uintptr_t)out & 15)) & 15;
    if (head > count) head = count;
    memcpy(out, in, head);
    out += head;
    in += head;
    count -= head;
    while (count >= 64) {
        pixelcopy_v2 a, b, c, d;
        memcpy(&a, in, 16);
        memcpy(&b, in + 16, 16);
        memcpy(&c, in + 32, 16);
        memcpy(&d, in + 48, 16);
        __builtin_nontemporal_store(a, (pixelcopy_v2 *)out);
        __builtin_nontemporal_store(b, (pixelcopy_v2 *)(out + 16));
        __builtin_nontemporal_store(c, (pixelcopy_v2 *)(out + 32));
        __builtin_nontemporal_store(d, (pixelcopy_v2 *)(out + 48));
        out += 64;
        in += 64;
        count -= 64;
    }
    memcpy(out, in, count);
}

void pixelcopy_store_fence(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_sfence();
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}
