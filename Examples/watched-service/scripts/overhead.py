#!/usr/bin/env python3
"""What watching costs a server: requests per second of /fast under wrk, with Probe off and on
(100 ms threshold, every event loop and the cooperative pool watched), in the same run.

Each round starts a fresh pair of services (two processes of one binary differ by a few percent
in throughput whatever they run: layout, port, allocator state; measured here at ±4%, more than
what is being measured), so that difference averages out over rounds and shows in the interval
instead of biasing it. Both services of a round run at once, on their own ports, pinned to CPU 0 (wrk to CPU 1, when the machine has
two or more): load generator and server do not trade cores, which is most of the round-to-round
noise. wrk loads one service at a time, in ABBA order round by round, so that drifts of the machine
fall on both alike. Each round gives one on/off ratio; the
loss is 1 - the mean ratio, with a 95% bootstrap interval over rounds.

Usage: overhead.py [ROUNDS] [SECONDS] [all|loops|pool]   (defaults 20 rounds of 5 s each way,
every loop and the pool watched; needs wrk)"""

import os
import random
import re
import statistics
import subprocess
import sys
import tempfile

from service import Service, fail


PINNED = os.cpu_count() >= 2
WRK = ["taskset", "-c", "1", "wrk"] if PINNED else ["wrk"]


def requests_per_second(port, seconds, connections, path="/fast"):
    output = subprocess.run(
        WRK + ["-t1", f"-c{connections}", f"-d{seconds}s", f"http://127.0.0.1:{port}{path}"],
        capture_output=True, text=True, check=True).stdout
    match = re.search(r"Requests/sec:\s+([0-9.]+)", output)
    if not match:
        fail(f"wrk printed no Requests/sec:\n{output}")
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)|Socket errors: (.*)", output)
    if errors:
        fail(f"wrk saw errors: {errors.group(0)}")
    return float(match.group(1))


def bootstrap_interval(values, draws=10_000, seed=1):
    generator = random.Random(seed)
    means = sorted(statistics.fmean(generator.choices(values, k=len(values))) for _ in range(draws))
    return means[int(0.025 * draws)], means[int(0.975 * draws) - 1]


def loss_line(label, ratios):
    """"  LABEL: mean …, 95% interval […] -> loss …": the mean ratio of rounds, its bootstrap interval,
    and the loss they give (1 - ratio)."""
    low, high = bootstrap_interval(ratios)
    mean = statistics.fmean(ratios)
    return (f"  {label}: mean {mean:.4f}, 95% interval [{low:.4f}, {high:.4f}] -> loss {1 - mean:+.2%} "
            f"[{1 - high:+.2%}, {1 - low:+.2%}]")


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    watch = sys.argv[3] if len(sys.argv) > 3 else "all"
    connections = 32
    cpus = "0" if PINNED else None
    ratios, rates, stalls = [], {"off": [], "on": []}, 0
    for index in range(rounds):
        off = Service(tempfile.mkdtemp(prefix="overhead-off-"), probe=False, cpus=cpus)
        on = Service(tempfile.mkdtemp(prefix="overhead-on-"), threshold_ms=100, cpus=cpus, watch=watch)
        try:
            for service in (off, on):  # warm-up: connections, caches, the pool's threads
                requests_per_second(service.port, 1, connections)
            order = [("off", off), ("on", on)] if index % 2 == 0 else [("on", on), ("off", off)]
            measured = {name: requests_per_second(service.port, seconds, connections) for name, service in order}
            stalls += len(on.stalls())
        finally:
            off.kill()
            on.kill()
        for name in rates:
            rates[name].append(measured[name])
        ratios.append(measured["on"] / measured["off"])
        print(f"round {index + 1:2}: off {measured['off']:9.0f} req/s, on {measured['on']:9.0f} req/s, "
              f"on/off {ratios[-1]:.4f}", flush=True)
    low, high = bootstrap_interval(ratios)
    mean = statistics.fmean(ratios)
    pinning = "servers on CPU 0, wrk on CPU 1" if PINNED else "not pinned"
    print(f"\n/fast, wrk -t1 -c{connections}, {rounds} rounds of {seconds} s each way (fresh processes each round, ABBA, {pinning}):")
    print(f"  Probe off: median {statistics.median(rates['off']):.0f} req/s "
          f"(min {min(rates['off']):.0f}, max {max(rates['off']):.0f})")
    print(f"  Probe on ({watch}): median {statistics.median(rates['on']):.0f} req/s "
          f"(min {min(rates['on']):.0f}, max {max(rates['on']):.0f})")
    print(f"  on/off: mean {mean:.4f}, 95% interval [{low:.4f}, {high:.4f}] -> loss {1 - mean:+.2%} "
          f"[{1 - high:+.2%}, {1 - low:+.2%}]")
    print(f"  stalls recorded with Probe on: {stalls}")


if __name__ == "__main__":
    main()
