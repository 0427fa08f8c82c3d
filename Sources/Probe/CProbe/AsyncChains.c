// Swift's logical call chain for a sampled stack.
//
// An async call is a tail call: the caller's machine frame is gone before the callee runs, so a
// frame-record walk from a pool thread reaches the one async function running now and then the
// executor (`swift_job_run`). The callers live on in async contexts: an async function's frame
// keeps its context just below its frame record (FP-8 on x86-64 and aarch64), and each context
// starts with its caller's context and the caller's resume function. Following that list gives the
// `[async]` frames Swift's own backtracer prints. The rest of the thread's stack is kept after the
// chain, so thread kinds and flame-graph roots stay as they were.
//
// Which functions keep a context slot is decided outside the handler from their prologues
// (AsyncFunctions.swift); the handler looks pcs up in that sorted table. A context is read only
// in place when it lies in writable memory known from /proc/self/maps at the last refresh, else with
// process_vm_readv (which fails rather than faults), and the walk goes on only while each resume
// function is async code, so a corrupted chain ends at its first bad link and is counted.

#include "AsyncChains.h"

#include "FramePointerUnwind.h"
#include "TaskList.h"

#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#if !defined(__linux__) || !(defined(__x86_64__) || defined(__aarch64__))
#error "async chains are read on Linux x86-64 and aarch64 only (see Sources/Probe/Probe/README.md)"
#endif
_Static_assert(sizeof(uintptr_t) == 8, "async contexts start with two 64-bit words");

typedef struct {
    int count;
    uintptr_t pairs[];  // start, end, start, end, … sorted
} range_table;

// Published once filled. A replaced table is freed only when no handler is inside a walk: each public
// entry counts itself in `table_readers` before loading a table (sequentially consistent, so a
// publisher that reads 0 after its exchange knows every later reader loads the new table).
static _Atomic(range_table *) async_functions;
static _Atomic(range_table *) context_memory;
static _Atomic int table_readers;
static pthread_mutex_t publishing = PTHREAD_MUTEX_INITIALIZER;
static range_table *retired[64];  // under `publishing`; a table retired while the list is full is kept
static int retired_count;
static _Atomic int chains_on;
typedef void *(*current_task_function)(void);
static _Atomic(current_task_function) current_task;

static _Atomic uint64_t walked_chains, walked_frames, bad_contexts, bad_resumes;
static _Atomic int memory_stale;

static int publish(_Atomic(range_table *) *slot, const uintptr_t *ranges, int count, int limit) {
    if (count < 0 || count > limit) return -1;
    range_table *table = malloc(sizeof *table + (size_t)count * 2 * sizeof(uintptr_t));
    if (!table) return -1;
    table->count = count;
    memcpy(table->pairs, ranges, (size_t)count * 2 * sizeof(uintptr_t));
    pthread_mutex_lock(&publishing);
    range_table *old = atomic_exchange(slot, table);
    if (old && retired_count < (int)(sizeof retired / sizeof retired[0])) retired[retired_count++] = old;
    if (atomic_load(&table_readers) == 0) {
        for (int i = 0; i < retired_count; i++) free(retired[i]);
        retired_count = 0;
    }
    pthread_mutex_unlock(&publishing);
    return 0;
}

int cprobe_async_tables_held(void) {
    pthread_mutex_lock(&publishing);
    int held = retired_count;
    pthread_mutex_unlock(&publishing);
    return held;
}

static void enter_tables(void) { atomic_fetch_add(&table_readers, 1); }
static void leave_tables(void) { atomic_fetch_sub(&table_readers, 1); }

// Verdicts already looked up, async or not: a chain's links and the executor's frames under it are
// the same few pcs sample after sample, and a binary search over thousands of ranges touches a dozen
// cold cache lines each time. One pc a slot for each verdict, replaced on a collision.
#define VERDICT_CACHE 1024
static _Atomic uintptr_t async_pcs[VERDICT_CACHE], other_pcs[VERDICT_CACHE];

static size_t verdict_slot(uintptr_t pc) { return (size_t)((pc >> 4) ^ (pc >> 14)) & (VERDICT_CACHE - 1); }

int cprobe_set_async_functions(const uintptr_t *ranges, int count) {
    int result = publish(&async_functions, ranges, count, CPROBE_MAX_ASYNC_RANGES);
    for (size_t i = 0; i < VERDICT_CACHE; i++) {
        atomic_store_explicit(&async_pcs[i], 0, memory_order_relaxed);
        atomic_store_explicit(&other_pcs[i], 0, memory_order_relaxed);
    }
    return result;
}

int cprobe_set_context_memory(const uintptr_t *ranges, int count) {
    return publish(&context_memory, ranges, count, CPROBE_MAX_CONTEXT_RANGES);
}

void cprobe_set_async_chains(int on, void *function) {
    atomic_store(&current_task, (current_task_function)function);
    atomic_store(&chains_on, on);
}

// The range of the table holding `address`, as its pair's index, or -1.
static int range_index(const range_table *table, uintptr_t address) {
    if (!table) return -1;
    int low = 0, high = table->count;
    while (low < high) {
        int mid = (low + high) / 2;
        if (table->pairs[2 * mid] <= address) low = mid + 1; else high = mid;
    }
    return low > 0 && address < table->pairs[2 * (low - 1) + 1] ? low - 1 : -1;
}

// True when [address, address + size) lies in one range of the table.
static int in_table(_Atomic(range_table *) *slot, uintptr_t address, uintptr_t size) {
    const range_table *table = atomic_load_explicit(slot, memory_order_acquire);
    int index = range_index(table, address);
    return index >= 0 && size <= table->pairs[2 * index + 1] - address;
}

// True when a context's two words at `address` lie in the published memory; `known` gets the range.
static int range_of_memory(uintptr_t address, uintptr_t known[2]) {
    const range_table *table = atomic_load_explicit(&context_memory, memory_order_acquire);
    int index = range_index(table, address);
    if (index < 0 || table->pairs[2 * index + 1] - address < 2 * sizeof(uintptr_t)) return 0;
    known[0] = table->pairs[2 * index];
    known[1] = table->pairs[2 * index + 1];
    return 1;
}

static int async_function_at(uintptr_t pc) { return in_table(&async_functions, pc, 1); }

int cprobe_in_async_function(uintptr_t pc) {
    enter_tables();
    int async = async_function_at(pc);
    leave_tables();
    return async;
}

// cprobe_in_async_function through the verdict cache.
static int in_async_code(uintptr_t pc) {
    size_t slot = verdict_slot(pc);
    if (pc == 0) return 0;
    if (atomic_load_explicit(&async_pcs[slot], memory_order_relaxed) == pc) return 1;
    if (atomic_load_explicit(&other_pcs[slot], memory_order_relaxed) == pc) return 0;
    int async = async_function_at(pc);
    atomic_store_explicit(async ? &async_pcs[slot] : &other_pcs[slot], pc, memory_order_relaxed);
    return async;
}

// A context's first two words. In the published memory they are read in place; elsewhere (a heap that
// grew since the last refresh) through process_vm_readv on this very process, which answers EFAULT
// for memory that cannot be read instead of faulting: a syscall (about a microsecond), and a refresh
// of the table is asked for. Returns 0 when the words cannot be read.
static int read_context(uintptr_t context, uintptr_t words[2], uintptr_t known[2]) {
    if ((context & 7) != 0 || context == 0) return 0;
    // A task's contexts share a few slabs: the range the previous context lay in answers most.
    int inside = context >= known[0] && context < known[1] && known[1] - context >= 2 * sizeof(uintptr_t);
    if (!inside) inside = range_of_memory(context, known);
    if (inside) {
        words[0] = ((const uintptr_t *)context)[0];
        words[1] = ((const uintptr_t *)context)[1];
        return 1;
    }
    atomic_store_explicit(&memory_stale, 1, memory_order_relaxed);
    return cprobe_read_memory(context, words, 2 * sizeof(uintptr_t)) == 0;
}

static int walk_chain(uintptr_t context, uintptr_t *out, int capacity, int *ended);

int cprobe_walk_async_chain(uintptr_t context, uintptr_t *out, int capacity, int *ended) {
    enter_tables();
    int depth = walk_chain(context, out, capacity, ended);
    leave_tables();
    return depth;
}

static int walk_chain(uintptr_t context, uintptr_t *out, int capacity, int *ended) {
    int depth = 0;
    uintptr_t known[2] = {0, 0};
    for (;;) {
        uintptr_t words[2];
        if (!read_context(context, words, known)) {
            *ended = CPROBE_CHAIN_BAD_CONTEXT;
            atomic_fetch_add_explicit(&bad_contexts, 1, memory_order_relaxed);
            return depth;
        }
        uintptr_t caller = words[0];
        // Resume functions are signed code pointers on arm64e only; Linux aarch64 stores them plain.
        uintptr_t resume = words[1];
        if (caller == 0) {
            // The task's root: its resume function is the runtime's (completing the task, or
            // handing a result to a waiting task), shown as the chain's last frame when it is code.
            if (resume != 0 && depth < capacity) out[depth++] = resume;
            *ended = CPROBE_CHAIN_ROOT;
            return depth;
        }
        if (!in_async_code(resume)) {
            *ended = CPROBE_CHAIN_BAD_RESUME;
            atomic_fetch_add_explicit(&bad_resumes, 1, memory_order_relaxed);
            return depth;
        }
        if (depth == capacity) {
            *ended = CPROBE_CHAIN_FULL;
            return depth;
        }
        out[depth++] = resume;
        context = caller;
    }
}

uintptr_t cprobe_current_task(void) {
    current_task_function task = atomic_load_explicit(&current_task, memory_order_relaxed);
    return task ? (uintptr_t)task() : 0;
}

int cprobe_async_chain_wanted(void) {
    if (!atomic_load_explicit(&chains_on, memory_order_relaxed)) return 0;
    current_task_function task = atomic_load_explicit(&current_task, memory_order_relaxed);
    return task == NULL || task() != NULL;
}

static int splice_chain(uintptr_t *pcs, const uintptr_t *fps, int depth, int capacity);

int cprobe_splice_async_chain(uintptr_t *pcs, const uintptr_t *fps, int depth, int capacity) {
    if (!atomic_load_explicit(&chains_on, memory_order_relaxed) || depth <= 0) return depth;
    enter_tables();
    int spliced = splice_chain(pcs, fps, depth, capacity);
    leave_tables();
    return spliced;
}

static int splice_chain(uintptr_t *pcs, const uintptr_t *fps, int depth, int capacity) {
    // The outermost async frame: each job runs one async function at a time (async calls are tail
    // calls), so outermost-first finds it after the executor's few frames, not after every leaf.
    for (int i = depth - 1; i >= 0; i--) {
        if (fps[i] == 0) continue;
        uintptr_t pc = pcs[i];
        if (!in_async_code(i == 0 ? pc : pc - 1)) continue;
        uintptr_t context = ((const uintptr_t *)fps[i])[-1];
        uintptr_t chain[64];  // on the handler's stack, as the records are; a deeper chain is cut there
        int room = capacity - (i + 1);
        int limit = room < (int)(sizeof chain / sizeof chain[0]) ? room : (int)(sizeof chain / sizeof chain[0]);
        int ended = CPROBE_CHAIN_ROOT;
        int count = walk_chain(context, chain, limit, &ended);
        atomic_fetch_add_explicit(&walked_chains, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&walked_frames, (uint64_t)count, memory_order_relaxed);
        // A partial function that reserves room for its tail calls' arguments (`sub $16,%rsp` before
        // its record) has no return address above its record: what the walk read there is not one,
        // and nothing after it is the thread's. The chain stands on its own then.
        int tail = depth - (i + 1);
        if (tail > 0 && !cprobe_return_follows_call(pcs[i + 1])) tail = 0;
        int kept_tail = tail < room - count ? tail : room - count;
        memmove(&pcs[i + 1 + count], &pcs[i + 1], (size_t)kept_tail * sizeof(uintptr_t));
        for (int j = 0; j < count; j++) pcs[i + 1 + j] = chain[j] | CPROBE_ASYNC_FRAME;
        return i + 1 + count + kept_tail;
    }
    return depth;
}

void cprobe_async_chain_counts(cprobe_async_counts *out) {
    out->chains = atomic_load(&walked_chains);
    out->frames = atomic_load(&walked_frames);
    out->bad_contexts = atomic_load(&bad_contexts);
    out->bad_resumes = atomic_load(&bad_resumes);
}

int cprobe_context_memory_stale(void) { return atomic_exchange(&memory_stale, 0); }
