#ifndef CPROBE_BENCHMARKS_H
#define CPROBE_BENCHMARKS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A spinning thread that measures the time taken from it: it reads the cycle counter in a tight
/// loop and records every gap longer than half a microsecond and shorter than 200 µs (time it did
/// not run its own code: a signal's delivery and handler, an interrupt; longer gaps are the
/// scheduler giving the core to someone else, which no sample takes).
typedef struct cprobe_lost_time_spinner cprobe_lost_time_spinner;

cprobe_lost_time_spinner *cprobe_lost_time_spinner_create(void);
/// Spins on the calling thread until `cprobe_lost_time_spinner_stop`; returns then.
void cprobe_lost_time_spinner_run(cprobe_lost_time_spinner *spinner);
void cprobe_lost_time_spinner_stop(cprobe_lost_time_spinner *spinner);
/// The gaps so far, and their median length to 100 ns (0 before the first); callable from any
/// thread while the spinner runs.
uint64_t cprobe_lost_time_spinner_gaps(cprobe_lost_time_spinner *spinner);
double cprobe_lost_time_spinner_median_gap_ns(cprobe_lost_time_spinner *spinner);
/// Frees a spinner whose `run` has returned.
void cprobe_lost_time_spinner_destroy(cprobe_lost_time_spinner *spinner);

#ifdef __cplusplus
}
#endif

#endif
