#ifndef CHARNESS_H
#define CHARNESS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Nanoseconds on CLOCK_MONOTONIC.
uint64_t charness_monotonic_ns(void);
/// Process CPU time (all threads, user + system) in ns.
uint64_t charness_process_cpu_ns(void);
/// Calling thread's CPU time in ns.
uint64_t charness_thread_cpu_ns(void);
/// Resolution of CLOCK_MONOTONIC in ns.
uint64_t charness_monotonic_resolution_ns(void);

/// Voluntary and involuntary context switches of the whole process so far.
void charness_context_switches(int64_t *voluntary, int64_t *involuntary);

/// A group of hardware counters (instructions, cycles) for the calling process, all threads.
typedef struct charness_counters {
    int instructions_fd;
    int cycles_fd;
} charness_counters;

/// Opens the counters. Returns 0 on success, or the errno of perf_event_open on failure,
/// leaving both descriptors at -1.
int charness_counters_open(charness_counters *counters);
void charness_counters_close(charness_counters *counters);
/// Resets and enables the counters.
void charness_counters_start(charness_counters *counters);
/// Disables the counters and reads them. Returns 0 on success.
int charness_counters_stop(charness_counters *counters, uint64_t *instructions, uint64_t *cycles);

/// True when running under valgrind (callgrind's client requests are then live).
int charness_running_on_valgrind(void);
/// Switch callgrind's instrumentation collection on and off around a measured region
/// (no-ops outside valgrind).
void charness_callgrind_start(void);
void charness_callgrind_stop(void);
/// Writes callgrind's counts since the last dump or zeroing to the next numbered part of the
/// output file (`<out>.<n>`), labelled with `label`, and zeroes them (no-op outside valgrind).
void charness_callgrind_dump(const char *label);

/// Installs a SIGINT handler that only sets a flag (and restores the default action, so a second
/// Ctrl-C ends the process at once).
void charness_install_interrupt_flag(void);
/// True once SIGINT arrived after charness_install_interrupt_flag().
int charness_interrupted(void);

/// Copies the GNU build ID of the main executable (its NT_GNU_BUILD_ID note, which the linker
/// computes from the linked contents) into `buffer`. Returns its length in bytes; 0 when the
/// executable has none (linked without --build-id) or the platform keeps no ELF notes; -1 when
/// `capacity` is too small for it.
int charness_executable_build_id(uint8_t *buffer, int capacity);

/// The Swift runtime's demangler (exported by libswiftCore). Returns a malloc'ed string or NULL.
char *swift_demangle(const char *mangledName, size_t mangledNameLength, char *outputBuffer,
                     size_t *outputBufferSize, uint32_t flags);

#ifdef __cplusplus
}
#endif

#endif
