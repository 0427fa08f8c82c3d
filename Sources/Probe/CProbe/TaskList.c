// The Swift tasks of this process, found by what they are in memory: Swift 6.3's runtime keeps no
// list of its tasks on Linux (swift-inspect walks the malloc heap on Darwin only), so the writable
// anonymous memory is scanned for objects whose isa is the runtime's task metadata, each checked
// as a task before it is reported. Outside any signal handler (the profile server's thread dump).
#define _GNU_SOURCE
#include "TaskList.h"
#include "PoolJobs.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#if !defined(__linux__) || !(defined(__x86_64__) || defined(__aarch64__))
#error "tasks are read on 64-bit Linux (x86-64 and aarch64) only"
#endif
_Static_assert(sizeof(uintptr_t) == 8, "AsyncTask's offsets below are 64-bit ones");

// Offsets in AsyncTask, internal layout 1 (RemoteInspection/RuntimeInternals.h; checked against
// libswift_Concurrency 6.3.1's code, e.g. `getTaskId` reads +0x24 and +0x90).
enum {
    TASK_JOB_FLAGS = 32,
    TASK_ID_LOW = 36,
    TASK_RESUME_FUNCTION = 56,
    TASK_RESUME_CONTEXT = 64,
    TASK_STATUS = 96,
    TASK_ID_HIGH = 144,
    TASK_DEPENDENCY = 160,
    TASK_READ = 168,  // the fields above; the whole object is larger (208 bytes on x86-64)
};

int cprobe_read_memory(uintptr_t address, void *out, uintptr_t size) {
    struct iovec local = {.iov_base = out, .iov_len = size};
    struct iovec remote = {.iov_base = (void *)address, .iov_len = size};
    long read = syscall(SYS_process_vm_readv, (long)getpid(), &local, 1L, &remote, 1L, 0L);
    return read == (long)size ? 0 : -1;
}

int cprobe_read_memory_errno(void) {
    static _Atomic int answer = -1;
    int known = atomic_load_explicit(&answer, memory_order_relaxed);
    if (known >= 0) return known;
    uint64_t here = 0x5EED, copy = 0;
    int result = cprobe_read_memory((uintptr_t)&here, &copy, sizeof copy) != 0 ? (errno > 0 ? errno : EIO)
        : copy == here ? 0 : EIO;
    atomic_store_explicit(&answer, result, memory_order_relaxed);
    return result;
}

uint64_t cprobe_context_fingerprint(uintptr_t context, int levels, int bytes) {
    unsigned char data[256];
    if (bytes > (int)sizeof data) bytes = (int)sizeof data;
    uint64_t hash = 14695981039346656037ull;  // FNV-1a
    for (int level = 0; level < levels && context != 0 && (context & 7) == 0; level++) {
        if (cprobe_read_memory(context, data, (uintptr_t)bytes) != 0) break;
        for (int i = 0; i < bytes; i++) hash = (hash ^ data[i]) * 1099511628211ull;
        uintptr_t parent;
        memcpy(&parent, data, sizeof parent);
        context = parent;
    }
    return hash;
}

static uint64_t word(const unsigned char *object, int offset) {
    uint64_t value;
    memcpy(&value, object + offset, sizeof value);
    return value;
}

static uint32_t half(const unsigned char *object, int offset) {
    uint32_t value;
    memcpy(&value, object + offset, sizeof value);
    return value;
}

// A task's fields from its first TASK_READ bytes, or 0 when they are not a live task's.
static int read_task(uintptr_t address, const unsigned char *object, cprobe_task *task) {
    uint32_t flags = half(object, TASK_JOB_FLAGS);
    uint32_t status = half(object, TASK_STATUS);
    if ((flags & 0xff) != 0 || !cprobe_known_job_priority((flags >> 8) & 0xff)) return 0;
    if (word(object, 8) == 0 || (status & CPROBE_TASK_COMPLETE) != 0) return 0;
    uintptr_t resume = word(object, TASK_RESUME_FUNCTION), context = word(object, TASK_RESUME_CONTEXT);
    if (resume == 0 || (context & 7) != 0) return 0;
    task->address = address;
    task->id = (uint64_t)half(object, TASK_ID_HIGH) << 32 | half(object, TASK_ID_LOW);
    task->job_flags = flags;
    task->status = status;
    task->resume_function = resume;
    task->resume_context = context;
    task->dependency = word(object, TASK_DEPENDENCY);
    return 1;
}

// Whether any page of [address, address + length) is in memory (mincore): a reserved arena or a
// large mapping nobody wrote to costs nothing to skip. Unknown (mincore failed) counts as resident.
static int any_resident(uintptr_t address, uintptr_t length) {
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t first = address & ~(uintptr_t)(page - 1);
    size_t pages = (size_t)((address + length - first + (uintptr_t)page - 1) / (uintptr_t)page);
    unsigned char vector[512];
    if (pages > sizeof vector) return 1;
    if (mincore((void *)first, address + length - first, vector) != 0) return 1;
    for (size_t i = 0; i < pages; i++) {
        if (vector[i] & 1) return 1;
    }
    return 0;
}

int cprobe_find_tasks(
    const uintptr_t *ranges, int range_count, uintptr_t task_metadata, cprobe_task *out, int capacity,
    uint64_t *scanned) {
    enum { CHUNK = 1 << 20 };
    // The copies this scan makes (the chunk, a task's fields) live in a mapping of its own that the
    // scan skips: found there, they were the tasks a second time (a thousand parked, 1,001 listed).
    size_t own_size = CHUNK + TASK_READ;
    unsigned char *buffer = mmap(NULL, own_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buffer == MAP_FAILED) return -1;
    unsigned char *object = buffer + CHUNK;
    uintptr_t own_start = (uintptr_t)buffer, own_end = own_start + own_size;
    int found = 0;
    uint64_t read_bytes = 0;
    for (int r = 0; r < range_count; r++) {
        uintptr_t start = (ranges[2 * r] + 15) & ~(uintptr_t)15, end = ranges[2 * r + 1];
        for (uintptr_t chunk = start; chunk < end; chunk += CHUNK) {
            uintptr_t length = end - chunk < CHUNK ? end - chunk : CHUNK;
            if (chunk < own_end && chunk + length > own_start) continue;
            if (!any_resident(chunk, length)) continue;  // never touched: no task was ever there
            if (cprobe_read_memory(chunk, buffer, length) != 0) continue;  // unmapped since the listing
            read_bytes += length;
            for (uintptr_t offset = 0; offset + 16 <= length; offset += 16) {
                if (word(buffer, (int)offset) != task_metadata) continue;
                if (offset + TASK_READ <= length) {
                    memcpy(object, buffer + offset, TASK_READ);
                } else if (cprobe_read_memory(chunk + offset, object, TASK_READ) != 0) {
                    continue;
                }
                cprobe_task task;
                if (!read_task(chunk + offset, object, &task)) continue;
                if (found < capacity) out[found] = task;
                found++;
            }
        }
    }
    munmap(buffer, own_size);
    if (scanned) *scanned = read_bytes;
    return found;
}
