#!/usr/bin/env python3
"""What watching costs a service that has nothing to do: the example server idle, Probe on (every
event loop and the cooperative pool watched) vs --no-probe, in interleaved pairs (ABBA order), each
server left alone for SECONDS after a warm-up. Per server: the CPU time its threads used in the
window (the scheduler's count per thread, /proc/PID/task/*/schedstat, as a share of one core), its resident memory (VmRSS) and its threads.

Usage: idle_cost.py [PAIRS=3] [SECONDS=30] [WORKDIR] [RESTING_LOOK_MS]   (build first: swift build -c release)
RESTING_LOOK_MS sets Probe's restingLookInterval (default: Probe's: at rest the 100 ms threshold, half of it while the server works).
Prints each pair, then the medians and the differences Probe made."""

import os
import statistics
import sys
import tempfile
import time

from service import Service

WARM_UP = 5  # seconds after the server listens: its start-up work and Probe's first look are done


def cpu_by_thread(pid):
    """{tid: CPU ns} from /proc/PID/task/*/schedstat: the scheduler's own count, to the nanosecond
    (/proc/PID/stat's utime and stime come in 10 ms clock ticks, 3 ticks in a 30 s window for 0.1%)."""
    result = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as schedstat:
                result[tid] = int(schedstat.read().split()[0])
        except OSError:
            pass  # the thread exited meanwhile
    return result


def cpu_seconds_between(before, after):
    """CPU time of the threads alive at the end, from the window's start (or their birth) on; a
    thread that exited within the window is not counted (none does in an idle server)."""
    return sum(ns - before.get(tid, 0) for tid, ns in after.items()) / 1e9


def threads(pid):
    return len(os.listdir(f"/proc/{pid}/task"))


def measure(workdir, probe, seconds, resting_look_ms):
    service = Service(workdir, probe=probe, resting_look_ms=resting_look_ms)
    try:
        status, _, _ = service.get("/fast")
        assert status == 200, status
        time.sleep(WARM_UP)
        pid = service.process.pid
        before, started = cpu_by_thread(pid), time.monotonic()
        time.sleep(seconds)
        used, elapsed = cpu_seconds_between(before, cpu_by_thread(pid)), time.monotonic() - started
        return {"cpu": used / elapsed, "rss": service.rss_kib(), "threads": threads(pid)}
    finally:
        service.terminate()


def main():
    pairs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 30
    workdir = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="idle-cost-")
    resting_look_ms = int(sys.argv[4]) if len(sys.argv) > 4 else None
    results = {True: [], False: []}
    for pair in range(pairs):
        order = [True, False] if pair % 2 == 0 else [False, True]
        for probe in order:
            result = measure(os.path.join(workdir, f"{pair}-{'probe' if probe else 'none'}"), probe, seconds,
                             resting_look_ms)
            results[probe].append(result)
            print(f"pair {pair + 1}: {'probe   ' if probe else 'no-probe'} CPU {result['cpu'] * 100:.3f}% of a core, "
                  f"RSS {result['rss'] / 1024:.1f} MiB, {result['threads']} threads", flush=True)

    def median(probe, key):
        return statistics.median(r[key] for r in results[probe])

    cpu = [p["cpu"] - n["cpu"] for p, n in zip(results[True], results[False])]
    rss = [(p["rss"] - n["rss"]) / 1024 for p, n in zip(results[True], results[False])]
    looks = f"resting looks every {resting_look_ms} ms" if resting_look_ms else "default resting looks"
    print(f"idle, {looks}, {pairs} pairs of {seconds:.0f} s: CPU {median(True, 'cpu') * 100:.3f}% vs "
          f"{median(False, 'cpu') * 100:.3f}% of a core (Probe adds {min(cpu) * 100:.3f}–{max(cpu) * 100:.3f}%), "
          f"RSS {median(True, 'rss') / 1024:.1f} vs {median(False, 'rss') / 1024:.1f} MiB "
          f"(Probe adds {min(rss):.1f}–{max(rss):.1f} MiB), threads {median(True, 'threads'):.0f} vs "
          f"{median(False, 'threads'):.0f}")


if __name__ == "__main__":
    main()
