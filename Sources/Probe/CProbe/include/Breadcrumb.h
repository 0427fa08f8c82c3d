#ifndef CPROBE_BREADCRUMB_H
#define CPROBE_BREADCRUMB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// "PRBCRUMB": a breadcrumb file starts with it, so a file that is not one is never taken for one.
#define CPROBE_BREADCRUMB_MAGIC 0x424D555243425250ULL
/// Bumped whenever the layout below changes; a file of another version is reported as unreadable.
#define CPROBE_BREADCRUMB_VERSION 1

/// What a running instance leaves behind for the next one, kept in a small file mapped into memory
/// (MAP_SHARED): every update is a store into the page cache, no system call and no allocation,
/// and what was stored survives the process however it ends — a SIGKILL from the OOM killer
/// included — as long as the machine keeps running. Fixed layout, host byte order: the next
/// instance on the same machine reads it.
typedef struct {
    uint64_t magic;
    uint32_t version;
    int32_t pid;
    /// CLOCK_REALTIME ns at start, and at the latest check.
    uint64_t start_realtime_ns;
    uint64_t heartbeat_realtime_ns;
    /// /proc/sys/kernel/random/boot_id (36 characters): another value at the next start means the
    /// machine restarted in between, which ended the instance whatever it was doing.
    char boot_id[40];
    /// At the latest check: the process's resident memory, and its memory cgroup's usage and limit
    /// (limit 0: none), and how many OOM kills that cgroup had counted (UINT64_MAX: unknown).
    uint64_t rss_anon_bytes;
    uint64_t rss_file_bytes;
    uint64_t cgroup_usage_bytes;
    uint64_t cgroup_limit_bytes;
    uint64_t cgroup_oom_kills;
    /// 0 none, 1 cgroup v1, 2 cgroup v2; and the cgroup's directory, to read its counters again.
    uint32_t cgroup_version;
    uint32_t reserved0;
    char cgroup_directory[256];
    /// The latest memory warning: when (0: none), why, and PSI's "some" avg10 then (percent).
    uint64_t last_warning_realtime_ns;
    char last_warning_reason[24];
    double last_warning_some_avg10;
    /// Memory stalled ("some") in the 10 s before the latest check, percent.
    double some_avg10;
    /// The latest startup phase marked (`Startup.mark`).
    char last_phase[64];
    /// 1 once the instance stopped its memory watch (a graceful shutdown).
    int32_t clean_exit;
    /// The fatal signal the crash handler saw (0: none).
    int32_t fatal_signal;
    uint64_t reserved1;
    /// Incremented before and after each update: odd means the process died in the middle of one.
    uint64_t sequence;
} cprobe_breadcrumb;

_Static_assert(sizeof(cprobe_breadcrumb) == 512, "the breadcrumb's layout is a file format: change the version with it");

/// Copies `text` into a fixed field, always NUL-terminated, the rest zeroed. No allocation.
void cprobe_copy_field(char *field, size_t capacity, const char *text);

/// Records fatal signals (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP) into `breadcrumb`
/// and lets the handler that was there before (or the default action) deal with them. Returns 0
/// or an errno. Only one breadcrumb at a time; a second call replaces the first's pointer.
int cprobe_breadcrumb_install_crash_handler(cprobe_breadcrumb *breadcrumb);
/// Restores the handlers that were there before, unless someone replaced ours since.
void cprobe_breadcrumb_uninstall_crash_handler(void);

#ifdef __cplusplus
}
#endif

#endif
