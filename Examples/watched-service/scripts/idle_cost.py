#!/usr/bin/env python3
"""What watching costs a service that has nothing to do: the example server idle, Probe on (every
event loop and the cooperative pool watched) without and with its flight recorder vs --no-probe, in
rounds of the three (each round in another order), each server left alone for SECONDS after a warm-up. Per server: the CPU time its threads used in the
window (the scheduler's count per thread, /proc/PID/task/*/schedstat, as a share of one core), its resident memory (VmRSS) and its threads.

Usage: idle_cost.py [ROUNDS=3] [SECONDS=30] [WORKDIR] [RESTING_LOOK_MS]   (build first: swift build -c release)
RESTING_LOOK_MS sets Probe's restingLookInterval (default: Probe's: at rest the 100 ms threshold, half of it while the server works).
Prints each run, then the medians and the differences Probe and its flight recorder made."""

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


def measure(workdir, variant, seconds, resting_look_ms):
    service = Service(workdir, probe=variant != "no-probe", flight_recorder=variant == "probe+flight",
                      resting_look_ms=resting_look_ms)
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


VARIANTS = ["probe", "no-probe", "probe+flight"]


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 30
    workdir = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="idle-cost-")
    resting_look_ms = int(sys.argv[4]) if len(sys.argv) > 4 else None
    results = {variant: [] for variant in VARIANTS}
    for round_ in range(rounds):
        # Each round in another rotation, so no variant always runs first or last.
        order = VARIANTS[round_ % 3:] + VARIANTS[:round_ % 3]
        for variant in order:
            result = measure(os.path.join(workdir, f"{round_}-{variant}"), variant, seconds, resting_look_ms)
            results[variant].append(result)
            print(f"round {round_ + 1}: {variant:12} CPU {result['cpu'] * 100:.3f}% of a core, "
                  f"RSS {result['rss'] / 1024:.1f} MiB, {result['threads']} threads", flush=True)

    def median(variant, key):
        return statistics.median(r[key] for r in results[variant])

    def added(variant, base):
        cpu = [a["cpu"] - b["cpu"] for a, b in zip(results[variant], results[base])]
        rss = [(a["rss"] - b["rss"]) / 1024 for a, b in zip(results[variant], results[base])]
        return (f"{variant} adds CPU {min(cpu) * 100:.3f}–{max(cpu) * 100:.3f}% of a core, "
                f"RSS {min(rss):.1f}–{max(rss):.1f} MiB to {base}")

    looks = f"resting looks every {resting_look_ms} ms" if resting_look_ms else "default resting looks"
    print(f"idle, {looks}, {rounds} rounds of {seconds:.0f} s; medians: " + ", ".join(
        f"{v} CPU {median(v, 'cpu') * 100:.3f}% RSS {median(v, 'rss') / 1024:.1f} MiB threads "
        f"{median(v, 'threads'):.0f}" for v in VARIANTS))
    print(added("probe", "no-probe"))
    print(added("probe+flight", "no-probe"))
    print(added("probe+flight", "probe"))


if __name__ == "__main__":
    main()
