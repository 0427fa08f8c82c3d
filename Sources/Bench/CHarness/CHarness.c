#define _GNU_SOURCE
#include "CHarness.h"

#include <errno.h>
#if defined(__linux__)
#include <elf.h>
#include <link.h>
#endif
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

static uint64_t read_clock(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t charness_monotonic_ns(void) { return read_clock(CLOCK_MONOTONIC); }
uint64_t charness_process_cpu_ns(void) { return read_clock(CLOCK_PROCESS_CPUTIME_ID); }
uint64_t charness_thread_cpu_ns(void) { return read_clock(CLOCK_THREAD_CPUTIME_ID); }

uint64_t charness_monotonic_resolution_ns(void) {
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void charness_context_switches(int64_t *voluntary, int64_t *involuntary) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    *voluntary = usage.ru_nvcsw;
    *involuntary = usage.ru_nivcsw;
}

static int open_counter(uint64_t config, int group_fd) {
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof(attr));
    attr.size = sizeof(attr);
    attr.type = PERF_TYPE_HARDWARE;
    attr.config = config;
    attr.disabled = group_fd == -1 ? 1 : 0;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.inherit = 1; /* count threads the benchmark creates, too */
    return (int)syscall(SYS_perf_event_open, &attr, 0, -1, group_fd, 0);
}

int charness_counters_open(charness_counters *counters) {
    counters->instructions_fd = -1;
    counters->cycles_fd = -1;
    /* inherit=1 cannot be combined with group reads, so the two counters are separate leaders. */
    int instructions = open_counter(PERF_COUNT_HW_INSTRUCTIONS, -1);
    if (instructions < 0) return errno;
    int cycles = open_counter(PERF_COUNT_HW_CPU_CYCLES, -1);
    if (cycles < 0) {
        int saved = errno;
        close(instructions);
        return saved;
    }
    counters->instructions_fd = instructions;
    counters->cycles_fd = cycles;
    return 0;
}

void charness_counters_close(charness_counters *counters) {
    if (counters->instructions_fd >= 0) close(counters->instructions_fd);
    if (counters->cycles_fd >= 0) close(counters->cycles_fd);
    counters->instructions_fd = -1;
    counters->cycles_fd = -1;
}

void charness_counters_start(charness_counters *counters) {
    ioctl(counters->instructions_fd, PERF_EVENT_IOC_RESET, 0);
    ioctl(counters->cycles_fd, PERF_EVENT_IOC_RESET, 0);
    ioctl(counters->instructions_fd, PERF_EVENT_IOC_ENABLE, 0);
    ioctl(counters->cycles_fd, PERF_EVENT_IOC_ENABLE, 0);
}

int charness_counters_stop(charness_counters *counters, uint64_t *instructions, uint64_t *cycles) {
    ioctl(counters->instructions_fd, PERF_EVENT_IOC_DISABLE, 0);
    ioctl(counters->cycles_fd, PERF_EVENT_IOC_DISABLE, 0);
    if (read(counters->instructions_fd, instructions, sizeof(*instructions)) != sizeof(*instructions)) return -1;
    if (read(counters->cycles_fd, cycles, sizeof(*cycles)) != sizeof(*cycles)) return -1;
    return 0;
}

int charness_running_on_valgrind(void) { return RUNNING_ON_VALGRIND ? 1 : 0; }

void charness_callgrind_start(void) {
    CALLGRIND_ZERO_STATS;
    CALLGRIND_TOGGLE_COLLECT;
}

void charness_callgrind_stop(void) { CALLGRIND_TOGGLE_COLLECT; }

void charness_callgrind_dump(const char *label) { CALLGRIND_DUMP_STATS_AT(label); }

static volatile sig_atomic_t interrupted_flag = 0;

static void on_interrupt(int signo) {
    (void)signo;
    interrupted_flag = 1;
    signal(SIGINT, SIG_DFL);
}

void charness_install_interrupt_flag(void) {
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL);
    /* A parent may hand us SIGINT blocked (some process launchers do); Ctrl-C must still arrive. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

int charness_interrupted(void) { return interrupted_flag ? 1 : 0; }

#if defined(__linux__)
struct build_id_search {
    uint8_t *buffer;
    int capacity;
    int length;
};

_Static_assert(sizeof(ElfW(Nhdr)) == 12, "an ELF note header is three 32-bit words");

/* dl_iterate_phdr visits the main program first: its PT_NOTE segments, note by note. */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct build_id_search *search = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        if (header->p_type != PT_NOTE) continue;
        /* Notes are padded to the segment's alignment: 4, or 8 for .note.gnu.property. */
        uintptr_t align = header->p_align == 8 ? 8 : 4;
        const char *note = (const char *)(info->dlpi_addr + header->p_vaddr);
        const char *end = note + header->p_memsz;
        while (note + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *note_header = (const ElfW(Nhdr) *)note;
            const char *name = note + sizeof(ElfW(Nhdr));
            const char *desc = name + ((note_header->n_namesz + align - 1) & ~(align - 1));
            const char *next = desc + ((note_header->n_descsz + align - 1) & ~(align - 1));
            if (next > end) break;
            if (note_header->n_type == NT_GNU_BUILD_ID && note_header->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
                if (note_header->n_descsz > (ElfW(Word))search->capacity) {
                    search->length = -1;
                } else {
                    memcpy(search->buffer, desc, note_header->n_descsz);
                    search->length = (int)note_header->n_descsz;
                }
                return 1;
            }
            note = next;
        }
    }
    return 1; /* only the main program */
}
#endif

int charness_executable_build_id(uint8_t *buffer, int capacity) {
#if defined(__linux__)
    struct build_id_search search = {buffer, capacity, 0};
    dl_iterate_phdr(find_build_id, &search);
    return search.length;
#else
    (void)buffer;
    (void)capacity;
    return 0;
#endif
}
