// A frame-pointer unwinder for the sampling signal handler, with libunwind where the chain of
// frame records does not hold.
//
// Swift on Linux x86_64 gives every non-leaf function a frame record (`push %rbp; mov %rsp,%rbp`),
// so most of a Swift stack is a linked list: [rbp] = the caller's rbp, [rbp+8] = the return
// address. Reading it costs a few nanoseconds a frame, where libunwind parses DWARF unwind
// tables at about 0.9 µs a frame. Three places break the chain, and each is handled exactly:
//  - the interrupted frame: a leaf (Swift leaves have no prologue) or a function in its prologue
//    or epilogue has not set rbp to its own frame, so rbp still points at the caller's record
//    and the caller would be skipped. Which case holds depends only on the program counter: the
//    function's first bytes answer it for functions that start with the frame-record prologue,
//    libunwind for the others, once per pc, and a small lock-free table remembers the answer;
//  - return addresses into code without frame pointers (glibc, libdispatch, qsort calling back
//    into Swift): libunwind steps through those frames from the frame record's values and the
//    walk goes back to frame records when it reaches frame-pointer code again;
//  - the outermost frames (start_thread, clone3, _start) have no frame records: they were
//    unwound once, when the thread was attached, and are appended when the walk reaches them.
// Every read stays inside the thread's stack bounds, taken when it was attached; frame records
// must move strictly outwards. A thread never attached is unwound with libunwind alone.

//
// aarch64 (AAPCS64) keeps the same record, [x29] = the caller's x29, [x29+8] = the saved x30, with
// three differences handled below: a leaf's return address is in x30, not on the stack; the
// record need not sit at the top of its frame, so the caller's sp is not x29 + 16 (libunwind steps
// from the callee instead, whose CFA rule LLVM bases on x29); and return addresses saved by code
// built with pointer authentication (Debian's arm64 glibc) carry a signature in their top bits.
// The interrupted frame is always decided by libunwind there (once per pc, cached).

#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include "FramePointerUnwind.h"

#include "AsyncChains.h"

#include <libunwind.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

// A signal's ucontext_t and libunwind's unw_context_t (a ucontext_t on x86-64, its prefix without
// the 4 KiB of extension records on aarch64) name their registers alike.
#if defined(__linux__) && defined(__x86_64__)
#define CONTEXT_PC(uc) ((uintptr_t)(uc)->uc_mcontext.gregs[REG_RIP])
#define CONTEXT_SP(uc) ((uintptr_t)(uc)->uc_mcontext.gregs[REG_RSP])
#define CONTEXT_FP(uc) ((uintptr_t)(uc)->uc_mcontext.gregs[REG_RBP])
#define CONTEXT_LR(uc) ((uintptr_t)0)
#define UNW_FRAME_POINTER UNW_X86_64_RBP
#elif defined(__linux__) && defined(__aarch64__)
#define CONTEXT_PC(uc) ((uintptr_t)(uc)->uc_mcontext.pc)
#define CONTEXT_SP(uc) ((uintptr_t)(uc)->uc_mcontext.sp)
#define CONTEXT_FP(uc) ((uintptr_t)(uc)->uc_mcontext.regs[29])
#define CONTEXT_LR(uc) ((uintptr_t)(uc)->uc_mcontext.regs[30])
#define UNW_FRAME_POINTER UNW_AARCH64_X29
_Static_assert(sizeof(uintptr_t) == 8, "aarch64 frame records hold 64-bit words");
#else
// Registers, frame-record rules and call encodings are known for these two only: elsewhere this
// file would misread stacks rather than fail.
#error "Probe's sampler unwinds Linux x86-64 and aarch64 stacks only (see Sources/Probe/Probe/README.md)"
#endif

// A code address as stored: without a pointer-authentication signature. `xpaclri` (a hint, so a
// no-op on cores without the extension) strips x30; x86-64 has nothing to strip.
static inline uintptr_t code_address(uintptr_t address) {
#if defined(__aarch64__)
    register uintptr_t lr __asm__("x30") = address;
    __asm__("hint #7" : "+r"(lr));
    return lr;
#else
    return address;
#endif
}

// The return address of a frame that has not saved it: aarch64's x30 (stored as the offset of a
// stack slot, which is 8-aligned, so 1 never is one).
#define RETURN_IN_LINK_REGISTER ((uintptr_t)1)

// MARK: - Modules whose code keeps frame records

typedef struct {
    int count;
    cprobe_code_range ranges[CPROBE_MAX_FP_RANGES];  // sorted by start
} fp_ranges;

// Published once filled; replaced tables are never freed, because a handler may still read them.
static _Atomic(fp_ranges *) published_ranges;

int cprobe_set_frame_pointer_code(const cprobe_code_range *ranges, int count) {
    if (count < 0 || count > CPROBE_MAX_FP_RANGES) return -1;
    fp_ranges *table = calloc(1, sizeof *table);
    if (!table) return -1;
    // Sorted by start for the handler's binary search.
    for (int i = 0; i < count; i++) {
        int j = table->count;
        while (j > 0 && table->ranges[j - 1].start > ranges[i].start) {
            table->ranges[j] = table->ranges[j - 1];
            j--;
        }
        table->ranges[j] = ranges[i];
        table->count++;
    }
    atomic_store_explicit(&published_ranges, table, memory_order_release);
    return 0;
}

static const cprobe_code_range *range_of(uintptr_t pc) {
    const fp_ranges *table = atomic_load_explicit(&published_ranges, memory_order_acquire);
    if (!table) return NULL;
    int low = 0, high = table->count;
    while (low < high) {
        int mid = (low + high) / 2;
        if (table->ranges[mid].start <= pc) low = mid + 1; else high = mid;
    }
    return low > 0 && pc < table->ranges[low - 1].end ? &table->ranges[low - 1] : NULL;
}

int cprobe_in_frame_pointer_code(uintptr_t pc) { return range_of(pc) != NULL; }

// MARK: - The interrupted frame from its function's first bytes

// Which function `pc` is in, from the module's function index: its start, or 0.
static uintptr_t function_start(const cprobe_code_range *range, uintptr_t pc) {
    if (!range->functions || pc < range->function_base || pc - range->function_base > UINT32_MAX) return 0;
    uint32_t offset = (uint32_t)(pc - range->function_base);
    const uint32_t *f = range->functions;
    int low = 0, high = range->function_count;
    while (low < high) {
        int mid = (low + high) / 2;
        if (f[3 * mid] <= offset) low = mid + 1; else high = mid;
    }
    if (low == 0) return 0;
    // Aliases share a start, the largest first: its size decides.
    int index = low - 1;
    while (index > 0 && f[3 * (index - 1)] == f[3 * index]) index--;
    uint32_t start = f[3 * index], size = f[3 * index + 1];
    if (size == 0 || offset - start >= size) return 0;
    uintptr_t address = range->function_base + start;
    // The bytes read below must lie in this executable mapping.
    if (address < range->start || address + 8 > range->end) return 0;
    return address;
}

// Swift (and C built with frame pointers) sets up a frame record in the function's first two
// instructions and takes it down in its last ones, `pop %rbp` (or `leave`) right before `ret` or
// a tail call's `jmp`. So in a function that starts with `[endbr64] push %rbp; mov %rsp,%rbp`,
// the interrupted instruction alone says where the return address is:
//  - at the `push` (or the `endbr64` before it): nothing pushed yet, the return address at sp;
//  - right after the `push`: the caller's rbp at sp, the return address above it;
//  - at a `ret`: the record is gone, the return address at sp;
//  - right after a `pop %rbp` or `leave` (a tail call's `jmp`, say): unknown here, libunwind;
//  - anywhere else: rbp is this function's record.
// That keeps libunwind, and the unwind-table pages it reads (64 KiB of RSS for each new page, with
// the kernel's fault-around), away from most new program counters. Functions without that
// prologue (Swift leaves, glibc) still ask libunwind.
int cprobe_frame_from_code(uintptr_t pc, uintptr_t *return_offset) {
#if defined(__aarch64__)
    // aarch64 prologues vary (`stp x29, x30, [sp, #-N]!` or `sub sp` first, the record anywhere in
    // the frame, `paciasp` before it): libunwind decides, once per pc.
    (void)pc;
    (void)return_offset;
    return CPROBE_FRAME_UNKNOWN;
#endif
    const cprobe_code_range *range = range_of(pc);
    if (!range) return CPROBE_FRAME_UNKNOWN;
    uintptr_t start = function_start(range, pc);
    if (!start) return CPROBE_FRAME_UNKNOWN;
    const unsigned char *code = (const unsigned char *)start;
    uintptr_t push = start;
    if (code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && code[3] == 0xfa) push += 4;
    const unsigned char *p = (const unsigned char *)push;
    if (push + 4 > range->end || !(p[0] == 0x55 && p[1] == 0x48 && p[2] == 0x89 && p[3] == 0xe5)) {
        return CPROBE_FRAME_UNKNOWN;
    }
    if (pc <= push) {
        *return_offset = 0;
        return CPROBE_FRAME_NO_RECORD;
    }
    if (pc == push + 1) {
        *return_offset = 8;
        return CPROBE_FRAME_NO_RECORD;
    }
    if (pc < push + 4) return CPROBE_FRAME_UNKNOWN;  // inside the mov: not an instruction boundary
    const unsigned char *at = (const unsigned char *)pc;
    if (pc + 2 <= range->end && (at[0] == 0xc3 || (at[0] == 0xf3 && at[1] == 0xc3))) {
        *return_offset = 0;
        return CPROBE_FRAME_NO_RECORD;
    }
    if (at[-1] == 0x5d || at[-1] == 0xc9) return CPROBE_FRAME_UNKNOWN;
    return CPROBE_FRAME_RECORD;
}

// MARK: - Attached threads: stack bounds and the outermost frames

typedef struct {
    uintptr_t low, high;  // [low, high): the thread's stack; high == 0 when not attached
    int tail_count;
    uintptr_t tail_cfa[CPROBE_TAIL_FRAMES];  // canonical frame address of each outer frame
    uintptr_t tail_ip[CPROBE_TAIL_FRAMES];
} attached_thread;

// initial-exec: read from the signal handler, so no lazy TLS allocation may happen there.
static __thread __attribute__((tls_model("initial-exec"))) attached_thread this_thread;

int cprobe_attach_thread(void) {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return -1;
    void *address = NULL;
    size_t size = 0;
    int ok = pthread_attr_getstack(&attr, &address, &size) == 0;
    pthread_attr_destroy(&attr);
    if (!ok || !address || size == 0) return -1;

    // The outermost frames, as libunwind sees them from here: kept in a ring so the last
    // CPROBE_TAIL_FRAMES survive a deep stack.
    uintptr_t ring_cfa[CPROBE_TAIL_FRAMES], ring_ip[CPROBE_TAIL_FRAMES];
    int seen = 0;
    unw_context_t context;
    unw_cursor_t cursor;
    if (unw_getcontext(&context) == 0 && unw_init_local(&cursor, &context) == 0) {
        while (seen < 4096 && unw_step(&cursor) > 0) {
            unw_word_t ip = 0, sp = 0;
            if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0) break;
            unw_get_reg(&cursor, UNW_REG_SP, &sp);
            ring_cfa[seen % CPROBE_TAIL_FRAMES] = (uintptr_t)sp;
            ring_ip[seen % CPROBE_TAIL_FRAMES] = code_address((uintptr_t)ip);
            seen++;
        }
    }
    attached_thread fresh = {.low = (uintptr_t)address, .high = (uintptr_t)address + size};
    int count = seen < CPROBE_TAIL_FRAMES ? seen : CPROBE_TAIL_FRAMES;
    for (int i = 0; i < count; i++) {
        int index = (seen - count + i) % CPROBE_TAIL_FRAMES;
        // After a step, sp is that frame's stack pointer at the call: its callee's canonical frame
        // address, which is what a frame-record walk knows when it meets this return address.
        fresh.tail_cfa[i] = ring_cfa[index];
        fresh.tail_ip[i] = ring_ip[index];
    }
    fresh.tail_count = count;
    // A signal may arrive while this is copied: the handler must see bounds only once the tail
    // is in place.
    this_thread.high = 0;
    atomic_signal_fence(memory_order_seq_cst);
    this_thread.low = fresh.low;
    this_thread.tail_count = fresh.tail_count;
    memcpy(this_thread.tail_cfa, fresh.tail_cfa, sizeof fresh.tail_cfa);
    memcpy(this_thread.tail_ip, fresh.tail_ip, sizeof fresh.tail_ip);
    atomic_signal_fence(memory_order_seq_cst);
    this_thread.high = fresh.high;
    return 0;
}

int cprobe_thread_attached(void) { return this_thread.high != 0; }

// MARK: - The interrupted frame: has it set rbp to its own frame record yet?

enum {
    FRAME_UNKNOWN = CPROBE_FRAME_UNKNOWN,
    FRAME_RECORD = CPROBE_FRAME_RECORD,
    FRAME_NO_RECORD = CPROBE_FRAME_NO_RECORD,
    FRAME_UNCACHEABLE = 3
};

// Direct-mapped: key = pc, value = kind | (return address offset from sp << 2). The key is
// cleared while an entry is rewritten, and a reader checks it before and after the value.
#define PC_CACHE_SIZE 1024
static struct {
    _Atomic uintptr_t pc;
    _Atomic uintptr_t value;
} pc_cache[PC_CACHE_SIZE];

static size_t pc_slot(uintptr_t pc) { return (pc ^ (pc >> 10)) & (PC_CACHE_SIZE - 1); }

static uintptr_t pc_cache_lookup(uintptr_t pc) {
    size_t i = pc_slot(pc);
    if (atomic_load_explicit(&pc_cache[i].pc, memory_order_acquire) != pc) return 0;
    uintptr_t value = atomic_load_explicit(&pc_cache[i].value, memory_order_acquire);
    if (atomic_load_explicit(&pc_cache[i].pc, memory_order_acquire) != pc) return 0;
    return value;
}

static void pc_cache_store(uintptr_t pc, uintptr_t value) {
    size_t i = pc_slot(pc);
    atomic_store_explicit(&pc_cache[i].pc, 0, memory_order_release);
    atomic_store_explicit(&pc_cache[i].value, value, memory_order_release);
    atomic_store_explicit(&pc_cache[i].pc, pc, memory_order_release);
}

// MARK: - Walking

typedef struct {
    uintptr_t *pcs;
    int capacity;
    int depth;
    uintptr_t low, high;
    /// The attached thread's outermost frames, when walking the thread that runs this code.
    const attached_thread *tail;
    int libunwind_steps;
    /// Each frame's record (0 when not known), for the async chain that starts at FP-8 of an async
    /// frame: `capacity` entries, or NULL.
    uintptr_t *fps;
} walk_state;

static int push(walk_state *w, uintptr_t pc) {
    if (w->depth >= w->capacity) return 0;
    if (w->fps) w->fps[w->depth] = 0;
    w->pcs[w->depth++] = code_address(pc);
    return w->depth < w->capacity;
}

// The innermost pushed frame's record is `fp`: remembered when its async slot (FP-8) is on the stack.
static void note_record(walk_state *w, uintptr_t fp) {
    if (w->fps && w->depth > 0 && fp - 8 >= w->low) w->fps[w->depth - 1] = fp;
}

static int record_readable(const walk_state *w, uintptr_t fp) {
    return (fp & 7) == 0 && fp >= w->low && fp <= w->high - 16;
}

// A made-up register state for libunwind: pc, sp, frame pointer and (aarch64) link register.
static void context_for(unw_context_t *uc, uintptr_t ip, uintptr_t sp, uintptr_t bp, uintptr_t lr) {
    memset(uc, 0, sizeof *uc);
#if defined(__x86_64__)
    (void)lr;
    uc->uc_mcontext.gregs[REG_RIP] = (greg_t)ip;
    uc->uc_mcontext.gregs[REG_RSP] = (greg_t)sp;
    uc->uc_mcontext.gregs[REG_RBP] = (greg_t)bp;
#else
    uc->uc_mcontext.pc = ip;
    uc->uc_mcontext.sp = sp;
    uc->uc_mcontext.regs[29] = bp;
    uc->uc_mcontext.regs[30] = lr;
#endif
}

static void walk_records(walk_state *w, uintptr_t fp, uintptr_t floor);

// Steps `cursor` outwards, pushing each frame, until a step lands in frame-pointer code again; the
// frame records then go on from the frame pointer it recovered.
static void continue_with_libunwind(walk_state *w, unw_cursor_t *cursor) {
    for (;;) {
        w->libunwind_steps++;
        if (unw_step(cursor) <= 0) return;
        unw_word_t ip = 0, sp = 0, bp = 0;
        if (unw_get_reg(cursor, UNW_REG_IP, &ip) < 0 || ip == 0) return;
        unw_get_reg(cursor, UNW_REG_SP, &sp);
        unw_get_reg(cursor, UNW_FRAME_POINTER, &bp);
        if (!push(w, (uintptr_t)ip)) return;
        // A return address in frame-pointer code: that function is a caller, so it has set rbp
        // to its frame record. Its record must lie above its own stack pointer.
        if (cprobe_in_frame_pointer_code(code_address((uintptr_t)ip)) && bp >= sp &&
            record_readable(w, (uintptr_t)bp)) {
            walk_records(w, (uintptr_t)bp, (uintptr_t)sp);
            return;
        }
    }
}

// libunwind from a frame whose ip is a return address into code without frame records (or, with
// `signal_frame`, the interrupted instruction), pushing the frames it steps to.
static void walk_with_libunwind(walk_state *w, unw_context_t *uc, int signal_frame) {
    unw_cursor_t cursor;
    if (unw_init_local2(&cursor, uc, signal_frame ? UNW_INIT_SIGNAL_FRAME : 0) != 0) return;
    continue_with_libunwind(w, &cursor);
}

// Follows frame records from `fp` (the record of the innermost frame already pushed, whose
// return address is next). `floor`: records must lie above it and move strictly outwards.
static void walk_records(walk_state *w, uintptr_t fp, uintptr_t floor) {
    while (record_readable(w, fp) && fp >= floor) {
        note_record(w, fp);
        uintptr_t next = ((const uintptr_t *)fp)[0];
        uintptr_t ret = code_address(((const uintptr_t *)fp)[1]);
        if (ret == 0) return;
        // x86-64: the caller's sp at the call. aarch64: a lower bound of it (the record may sit
        // anywhere in its frame).
        uintptr_t cfa = fp + 16;
        if (!cprobe_in_frame_pointer_code(ret)) {
            // The outermost frames, unwound when the thread was attached?
            const attached_thread *tail = w->tail;
            for (int i = 0; tail && i < tail->tail_count; i++) {
#if defined(__aarch64__)
                int same_frame = tail->tail_cfa[i] >= cfa && tail->tail_ip[i] == ret;
#else
                int same_frame = tail->tail_cfa[i] == cfa && tail->tail_ip[i] == ret;
#endif
                if (same_frame) {
                    for (int j = i; j < tail->tail_count; j++) {
                        if (!push(w, tail->tail_ip[j])) return;
                    }
                    return;
                }
            }
#if defined(__aarch64__)
            // One libunwind step from the frame whose record this is (its pc was pushed last; the
            // interrupted instruction when it is the only one) gives the caller's true sp; it must
            // land on `ret`, or the walk ends there rather than guess.
            uintptr_t callee = w->pcs[w->depth - 1];
            unw_context_t uc;
            context_for(&uc, callee, fp, fp, ret);
            unw_cursor_t cursor;
            unw_word_t ip = 0;
            int stepped = unw_init_local2(&cursor, &uc, w->depth == 1 ? UNW_INIT_SIGNAL_FRAME : 0) == 0 &&
                          unw_step(&cursor) > 0 && unw_get_reg(&cursor, UNW_REG_IP, &ip) == 0;
            w->libunwind_steps++;
            if (!push(w, ret) || !stepped || code_address((uintptr_t)ip) != ret) return;
            continue_with_libunwind(w, &cursor);
#else
            if (!push(w, ret)) return;
            unw_context_t uc;
            context_for(&uc, ret, cfa, next, 0);
            walk_with_libunwind(w, &uc, 0);
#endif
            return;
        }
        if (!push(w, ret)) return;
        if (next == 0) return;  // the end of the chain (_start, a thread entry that zeroes rbp)
        if (next <= fp) return;
        floor = cfa;
        fp = next;
    }
}

// libunwind's answer for a frame at the context's pc: does rbp hold this frame's record (rbp ==
// CFA - 16), or the caller's (rbp unchanged by the step), and where is the return address? No
// answer for a function without an unwind table entry (libswiftCore has protocol witnesses
// without one): libunwind then makes up a one-byte procedure and its step is a guess.
static uintptr_t frame_from_libunwind(const unw_context_t *context, int *steps) {
    uintptr_t sp = CONTEXT_SP(context);
    uintptr_t bp = CONTEXT_FP(context);
    uintptr_t value = FRAME_UNCACHEABLE;
    unw_cursor_t cursor;
    unw_proc_info_t info;
    uintptr_t pc = CONTEXT_PC(context);
    if (unw_init_local2(&cursor, (unw_context_t *)context, UNW_INIT_SIGNAL_FRAME) == 0 &&
        unw_get_proc_info(&cursor, &info) == 0 && info.format != UNW_INFO_FORMAT_DYNAMIC && info.start_ip <= pc &&
        pc < info.end_ip) {
        (*steps)++;
        if (unw_step(&cursor) > 0) {
            unw_word_t cfa = 0, caller_bp = 0;
            unw_get_reg(&cursor, UNW_REG_SP, &cfa);
            unw_get_reg(&cursor, UNW_FRAME_POINTER, &caller_bp);
#if defined(__x86_64__)
            if (bp + 16 == cfa) {
                value = FRAME_RECORD;
            } else if (caller_bp == bp && cfa >= sp + 8 && cfa - sp - 8 < ((uintptr_t)1 << 20)) {
                value = FRAME_NO_RECORD | ((cfa - 8 - sp) << 2);
            }
#else
            // x29 changed by this frame: its own record, somewhere in its frame. x29 untouched: the
            // return address is where x30 was saved, a stack slot, or still x30.
            unw_save_loc_t saved;
            unw_word_t ip = 0;
            unw_get_reg(&cursor, UNW_REG_IP, &ip);
            if (caller_bp != bp) {
                if (bp >= sp && bp + 16 <= cfa && ((const uintptr_t *)bp)[0] == caller_bp) value = FRAME_RECORD;
            } else if (unw_get_save_loc(&cursor, UNW_AARCH64_X30, &saved) == 0 && saved.type == UNW_SLT_MEMORY &&
                       saved.u.addr >= sp && saved.u.addr + 8 <= cfa && ((saved.u.addr - sp) & 7) == 0 &&
                       saved.u.addr - sp < ((uintptr_t)1 << 20)) {
                value = FRAME_NO_RECORD | ((saved.u.addr - sp) << 2);
            } else if (code_address((uintptr_t)ip) == code_address(CONTEXT_LR(context))) {
                value = FRAME_NO_RECORD | (RETURN_IN_LINK_REGISTER << 2);
            }
#endif
        }
    }
    return value;
}

static uintptr_t frame_value_from_code(uintptr_t pc) {
    uintptr_t offset = 0;
    switch (cprobe_frame_from_code(pc, &offset)) {
    case CPROBE_FRAME_RECORD: return FRAME_RECORD;
    case CPROBE_FRAME_NO_RECORD: return FRAME_NO_RECORD | (offset << 2);
    default: return FRAME_UNKNOWN;
    }
}

static _Atomic int rule_check_on;
static _Atomic long rule_agreed, rule_disagreed;
static _Atomic uintptr_t rule_first_disagreement;

void cprobe_set_frame_rule_check(int on) {
    if (on) {
        atomic_store(&rule_agreed, 0);
        atomic_store(&rule_disagreed, 0);
        atomic_store(&rule_first_disagreement, 0);
    }
    atomic_store(&rule_check_on, on);
}

void cprobe_frame_rule_check_counts(long *agreed, long *disagreed, uintptr_t *first_disagreement) {
    *agreed = atomic_load(&rule_agreed);
    *disagreed = atomic_load(&rule_disagreed);
    *first_disagreement = atomic_load(&rule_first_disagreement);
}

int cprobe_frame_from_libunwind(uintptr_t pc, uintptr_t *return_offset) {
#if defined(__aarch64__)
    // Only compared with the answer from code, which aarch64 does not have.
    (void)pc;
    *return_offset = 0;
    return CPROBE_FRAME_UNKNOWN;
#endif
    // A scratch stack whose every word holds the frame-pointer value, as a real stack would at
    // the two places the answer reads it: the saved rbp right after `push %rbp`, and the record.
    static uintptr_t stack[8192];
    uintptr_t sp = (uintptr_t)&stack[1024];
    uintptr_t bp = (uintptr_t)&stack[1024 + 64];
    for (size_t i = 0; i < sizeof stack / sizeof stack[0]; i++) stack[i] = bp;
    unw_context_t uc;
    context_for(&uc, pc, sp, bp, 0);
    int steps = 0;
    uintptr_t value = frame_from_libunwind(&uc, &steps);
    *return_offset = value >> 2;
    switch (value & 3) {
    case FRAME_RECORD: return CPROBE_FRAME_RECORD;
    case FRAME_NO_RECORD: return CPROBE_FRAME_NO_RECORD;
    default: return CPROBE_FRAME_UNKNOWN;
    }
}

// The interrupted frame: pushes its caller and returns the frame record to continue from (0 when
// libunwind took the rest of the walk, or the walk ended). Asks the function's first bytes, then
// libunwind, once per pc; a small lock-free table remembers the answer.
static uintptr_t step_interrupted(walk_state *w, const unw_context_t *context) {
    uintptr_t pc = CONTEXT_PC(context);
    uintptr_t sp = CONTEXT_SP(context);
    uintptr_t bp = CONTEXT_FP(context);
    int checking = atomic_load_explicit(&rule_check_on, memory_order_relaxed);
    uintptr_t value = checking ? 0 : pc_cache_lookup(pc);
    if (value == 0) {
        value = frame_value_from_code(pc);
        if (value == FRAME_UNKNOWN || checking) {
            uintptr_t unwound = frame_from_libunwind(context, &w->libunwind_steps);
            if (value != FRAME_UNKNOWN && unwound != FRAME_UNCACHEABLE) {
                if (unwound == value) {
                    atomic_fetch_add(&rule_agreed, 1);
                } else {
                    atomic_fetch_add(&rule_disagreed, 1);
                    uintptr_t none = 0;
                    atomic_compare_exchange_strong(&rule_first_disagreement, &none, pc);
                }
            }
            value = unwound;
        }
        pc_cache_store(pc, value);
    }
    switch (value & 3) {
    case FRAME_RECORD:
        return bp;  // its record names its caller
    case FRAME_NO_RECORD: {
        uintptr_t slot = sp + (value >> 2), ret;
        if ((value >> 2) == RETURN_IN_LINK_REGISTER) {
            ret = code_address(CONTEXT_LR(context));
        } else {
            if (slot < w->low || slot > w->high - 8) return 0;
            ret = code_address(*(const uintptr_t *)slot);
        }
        if (ret == 0 || !push(w, ret)) return 0;
        if (!cprobe_in_frame_pointer_code(ret)) {
            unw_context_t uc;
#if defined(__aarch64__)
            // The caller's sp is known only to the interrupted frame's unwind table: step from it.
            w->depth--;
            context_for(&uc, pc, sp, bp, CONTEXT_LR(context));
            walk_with_libunwind(w, &uc, 1);
#else
            context_for(&uc, ret, slot + 8, bp, 0);
            walk_with_libunwind(w, &uc, 0);
#endif
            return 0;
        }
        return bp;  // the frame pointer is still the caller's record
    }
    default: {
        unw_context_t uc;
        context_for(&uc, pc, sp, bp, CONTEXT_LR(context));
        walk_with_libunwind(w, &uc, 1);
        return 0;
    }
    }
}

// The interrupted frame's own record, when libunwind's step from it (`caller`, now at its caller)
// shows that the frame pointer holds it: work done inline in an async function is interrupted there,
// and its chain starts at that record. 0 otherwise (a leaf, a prologue or epilogue).
static uintptr_t interrupted_record(const unw_context_t *context, unw_cursor_t *caller) {
    uintptr_t sp = CONTEXT_SP(context), bp = CONTEXT_FP(context);
    unw_word_t cfa = 0, caller_bp = 0;
    if (unw_get_reg(caller, UNW_REG_SP, &cfa) < 0 || unw_get_reg(caller, UNW_FRAME_POINTER, &caller_bp) < 0) return 0;
    if (bp < sp + 8 || bp + 16 > cfa || (bp & 7) != 0 || !cprobe_in_async_function(CONTEXT_PC(context))) return 0;
    // Between the frame's sp and its caller's, so readable; a record holds the caller's frame pointer.
    return ((const uintptr_t *)bp)[0] == caller_bp ? bp : 0;
}

// A signal handler's ucontext_t is read through libunwind's unw_context_t: same registers, same places.
#if defined(__aarch64__)
_Static_assert(offsetof(ucontext_t, uc_mcontext.pc) == offsetof(unw_context_t, uc_mcontext.pc), "pc");
_Static_assert(offsetof(ucontext_t, uc_mcontext.sp) == offsetof(unw_context_t, uc_mcontext.sp), "sp");
_Static_assert(offsetof(ucontext_t, uc_mcontext.regs) == offsetof(unw_context_t, uc_mcontext.regs), "regs");
#endif

int cprobe_unwind_context(const void *context, int method, uintptr_t *pcs, int capacity, int *libunwind_steps) {
    const unw_context_t *uc = context;
    uintptr_t fps[CPROBE_UNWIND_MAX_FRAMES];
    int chain = method != CPROBE_UNWIND_NONE && capacity <= CPROBE_UNWIND_MAX_FRAMES && cprobe_async_chain_wanted();
    walk_state w = {.pcs = pcs, .capacity = capacity, .fps = chain ? fps : NULL};
    if (capacity <= 0) return 0;
    uintptr_t pc = CONTEXT_PC(uc);
    uintptr_t sp = CONTEXT_SP(uc);
    if (method == CPROBE_UNWIND_NONE) {
        push(&w, pc);
    } else if (method == CPROBE_UNWIND_FRAME_POINTERS && this_thread.high != 0 && sp >= this_thread.low &&
        sp < this_thread.high) {
        w.low = this_thread.low;
        w.high = this_thread.high;
        w.tail = &this_thread;
        push(&w, pc);
        uintptr_t fp = step_interrupted(&w, uc);
        if (fp) walk_records(&w, fp, sp);
    } else {
        // libunwind for every frame, from the interrupted context, so the handler's own frames and
        // the signal trampoline are never included.
        unw_cursor_t cursor;
        if (unw_init_local2(&cursor, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) == 0) {
            do {
                unw_word_t ip = 0, bp = 0;
                if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0) break;
                push(&w, (uintptr_t)ip);
                // A caller in an async function is past its prologue: its frame pointer is its
                // record. The interrupted frame's is when libunwind's step confirms it (below).
                if (w.fps && w.depth > 1 && unw_get_reg(&cursor, UNW_FRAME_POINTER, &bp) == 0 && bp != 0 &&
                    (bp & 7) == 0 && cprobe_in_async_function(code_address((uintptr_t)ip) - 1)) {
                    w.fps[w.depth - 1] = (uintptr_t)bp;
                }
                if (w.fps && w.depth == 2) w.fps[0] = interrupted_record(uc, &cursor);
                w.libunwind_steps++;
            } while (w.depth < capacity && unw_step(&cursor) > 0);
        }
    }
    if (w.fps) w.depth = cprobe_splice_async_chain(pcs, w.fps, w.depth, capacity);
    if (libunwind_steps) *libunwind_steps = w.libunwind_steps;
    return w.depth;
}

// MARK: - The calling thread, from here

__attribute__((noinline)) int cprobe_unwind_here(uintptr_t *pcs, int capacity) {
    if (capacity <= 0) return 0;
    if (this_thread.high == 0 && cprobe_attach_thread() != 0) return 0;
    uintptr_t fps[CPROBE_UNWIND_MAX_FRAMES];
    int chain = capacity <= CPROBE_UNWIND_MAX_FRAMES && cprobe_async_chain_wanted();
    walk_state w = {
        .pcs = pcs, .capacity = capacity, .low = this_thread.low, .high = this_thread.high, .tail = &this_thread,
        .fps = chain ? fps : NULL};
    // This function's own record holds the caller's pc (the first frame) and the caller's record.
    const uintptr_t *own = __builtin_frame_address(0);
    push(&w, own[1]);
    if (own[0] > (uintptr_t)own) walk_records(&w, own[0], (uintptr_t)own + 16);
    if (w.fps) w.depth = cprobe_splice_async_chain(pcs, w.fps, w.depth, capacity);
    return w.depth;
}

// MARK: - A thread blocked in a syscall, from /proc/self/task/TID/syscall

static int follows_call(uintptr_t ret);

int cprobe_return_follows_call(uintptr_t ret) { return follows_call(ret); }

// True when the bytes before `ret` end in a call instruction: what makes a stack word a return
// address rather than a stale code pointer.
static int follows_call(uintptr_t ret) {
#if defined(__aarch64__)
    if ((ret & 3) || !cprobe_in_frame_pointer_code(ret - 4)) return 0;
    uint32_t call = ((const uint32_t *)ret)[-1];
    return (call & 0xfc000000) == 0x94000000      // bl
           || (call & 0xfffffc1f) == 0xd63f0000   // blr xN
           || (call & 0xfefff800) == 0xd63f0800;  // blraa, blrab, blraaz, blrabz
#endif
    if (!cprobe_in_frame_pointer_code(ret - 7)) return 0;
    const unsigned char *p = (const unsigned char *)ret;
    if (p[-5] == 0xe8) return 1;  // call rel32
    // call r/m64: ff /2 with a 0-, 1-, 2-, 5- or 6-byte operand after the ModRM byte.
    static const int lengths[] = {2, 3, 4, 6, 7};
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        int n = lengths[i];
        if (p[-n] == 0xff && ((p[-n + 1] >> 3) & 7) == 2) return 1;
    }
    return 0;
}

// The first stack word at or above `from` that points further out and is followed by a return
// address, confirmed by the next record having the same shape: a frame record, or 0.
static uintptr_t find_record(const walk_state *w, uintptr_t from) {
    uintptr_t high = w->high;
    uintptr_t limit = from + 65536 < high - 16 ? from + 65536 : high - 16;
    for (uintptr_t a = (from + 7) & ~(uintptr_t)7; a <= limit; a += 8) {
        uintptr_t next = ((const uintptr_t *)a)[0];
        uintptr_t ret = code_address(((const uintptr_t *)a)[1]);
        if (next <= a || next > high - 16 || (next & 7) || !follows_call(ret)) continue;
        uintptr_t next_ret = ((const uintptr_t *)next)[1];
        uintptr_t after = ((const uintptr_t *)next)[0];
        if (next_ret == 0 || (after != 0 && (after <= next || after > high - 16))) continue;
        return a;
    }
    return 0;
}

static int unwind_blocked(walk_state *w, uintptr_t pc, uintptr_t sp);

int cprobe_unwind_blocked(uintptr_t pc, uintptr_t sp, uintptr_t low, uintptr_t high, uintptr_t *pcs, int capacity) {
    uintptr_t fps[CPROBE_UNWIND_MAX_FRAMES];
    walk_state w = {
        .pcs = pcs, .capacity = capacity, .low = low, .high = high,
        .fps = capacity <= CPROBE_UNWIND_MAX_FRAMES ? fps : NULL};
    if (capacity <= 0 || sp < low || sp >= high || pc == 0) return 0;
    w.depth = unwind_blocked(&w, pc, sp);
    // Another thread's stack: whether it runs a task cannot be asked, so every frame may be async.
    return w.fps ? cprobe_splice_async_chain(pcs, w.fps, w.depth, capacity) : w.depth;
}

// The walk of cprobe_unwind_blocked, into `w`: returns the depth.
static int unwind_blocked(walk_state *w, uintptr_t pc, uintptr_t sp) {
    push(w, pc);
    // The syscall wrapper and whatever libc frames lead to it have DWARF unwind tables but no
    // frame records; the frame pointer is unknown (the kernel shows only sp and pc), so step with
    // libunwind until a frame in frame-pointer code, then find that frame's record on the stack.
    unw_context_t uc;
    context_for(&uc, pc, sp, 0, 0);
    unw_cursor_t cursor;
    if (unw_init_local2(&cursor, &uc, UNW_INIT_SIGNAL_FRAME) != 0) return w->depth;
    for (int steps = 0; steps < 16; steps++) {
        unw_word_t ip = 0, frame_sp = 0, bp = 0;
        if (unw_step(&cursor) <= 0 || unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0) {
#if defined(__aarch64__)
            // A wrapper that keeps its return address in x30, which the kernel does not show: its
            // caller is lost, the records above it are not.
            uintptr_t record = steps == 0 ? find_record(w, sp) : 0;
            if (record) walk_records(w, record, sp);
#endif
            return w->depth;
        }
        unw_get_reg(&cursor, UNW_REG_SP, &frame_sp);
        unw_get_reg(&cursor, UNW_FRAME_POINTER, &bp);
        if (!push(w, (uintptr_t)ip)) return w->depth;
        if (!cprobe_in_frame_pointer_code(code_address((uintptr_t)ip))) continue;
        // A libc frame that saved the frame pointer gave it back to libunwind; otherwise look for
        // the record on the stack.
        uintptr_t record = 0;
        if (bp >= frame_sp && record_readable(w, (uintptr_t)bp)) {
            record = (uintptr_t)bp;
        } else {
            record = find_record(w, (uintptr_t)frame_sp);
        }
        if (record) walk_records(w, record, (uintptr_t)frame_sp);
        return w->depth;
    }
    return w->depth;
}
