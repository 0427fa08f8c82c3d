#!/usr/bin/env python3
"""What the heap sampler costs a server (ProbeHeap at its default 512 KiB mean interval, --heap-profile)
against the same service without it; both serve profiles on --profile-port, so only the sampler differs.

1. Throughput: requests per second of /orders?n=100 (about 1,500 allocations, 230 KB per request)
   under wrk, a fresh service each round (on CPU 0, wrk on CPU 1) whose sampler /heap-sampler stops
   and starts in ABBA order (two processes of one binary differ by up to 10% here: layout, heap),
   the loss 1 - the mean ratio with a 95% bootstrap interval over rounds.
2. Idle: each service left alone for IDLE_SECONDS after a warm-up: its threads' CPU time
   (/proc/PID/task/*/schedstat) as a share of one core, and its VmRSS.

Usage: heap_cost.py [ROUNDS=10] [SECONDS=5] [IDLE_ROUNDS=3] [IDLE_SECONDS=30]   (needs wrk; release build)"""

import statistics
import sys
import tempfile
import time
import urllib.request

from idle_cost import WARM_UP, cpu_by_thread, cpu_seconds_between
from overhead import PINNED, loss_line, requests_per_second
from service import Service, check, free_port

ROUTE = "/orders?n=100"


def start(heap):
    return Service(tempfile.mkdtemp(prefix=f"heap-cost-{'on' if heap else 'off'}-"), profile_port=free_port(),
                   heap_profile=heap, cpus="0" if PINNED else None)


def sampled_profile_bytes(service):
    """The size of the service's /debug/pprof/allocs: that the sampler ran, not only linked."""
    with urllib.request.urlopen(f"http://127.0.0.1:{service.profile_port}/debug/pprof/allocs", timeout=60) as answer:
        check(answer.status == 200, f"/debug/pprof/allocs answered {answer.status}")
        return len(answer.read())


def switch(service, on):
    status, body, _ = service.get(f"/heap-sampler?on={1 if on else 0}")
    check(status == 200, f"/heap-sampler answered {status}: {body}")


def throughput(rounds, seconds, connections=32):
    ratios = []
    for index in range(rounds):
        service = start(True)
        try:
            requests_per_second(service.port, 1, connections, ROUTE)  # warm-up: connections, caches, threads
            order = ["off", "on"] if index % 2 == 0 else ["on", "off"]
            measured = {}
            for name in order:
                switch(service, name == "on")
                measured[name] = requests_per_second(service.port, seconds, connections, ROUTE)
                if name == "on":
                    check(sampled_profile_bytes(service) > 1000, "the sampler's profile is empty")
        finally:
            service.kill()
        ratios.append(measured["on"] / measured["off"])
        print(f"round {index + 1:2}: sampler off {measured['off']:8.0f} req/s, on {measured['on']:8.0f} req/s, "
              f"on/off {ratios[-1]:.4f}", flush=True)
    print(f"\n{ROUTE}, wrk -t1 -c{connections}, {rounds} rounds of {seconds} s each way (ABBA in one process):")
    print(loss_line("on/off", ratios) + "\n", flush=True)


def idle(rounds, seconds):
    results = {"off": [], "on": []}
    for index in range(rounds):
        for name in (["off", "on"] if index % 2 == 0 else ["on", "off"]):
            service = start(name == "on")
            try:
                status, _, _ = service.get("/fast")
                check(status == 200, f"/fast answered {status}")
                time.sleep(WARM_UP)
                pid = service.process.pid
                before, started = cpu_by_thread(pid), time.monotonic()
                time.sleep(seconds)
                used = cpu_seconds_between(before, cpu_by_thread(pid)) / (time.monotonic() - started)
                results[name].append((used, service.rss_kib()))
            finally:
                service.kill()
            print(f"idle round {index + 1}: sampler {name:3} CPU {used * 100:.3f}% of a core, "
                  f"RSS {results[name][-1][1] / 1024:.1f} MiB", flush=True)
    cpu = {name: statistics.median(r[0] for r in results[name]) for name in results}
    rss = {name: statistics.median(r[1] for r in results[name]) / 1024 for name in results}
    print(f"\nidle, {rounds} rounds of {seconds} s, medians: sampler off {cpu['off'] * 100:.3f}% of a core, "
          f"{rss['off']:.1f} MiB; on {cpu['on'] * 100:.3f}%, {rss['on']:.1f} MiB; "
          f"difference {(cpu['on'] - cpu['off']) * 100:+.3f}% of a core, {rss['on'] - rss['off']:+.1f} MiB")


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    idle_rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    idle_seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 30
    if rounds:
        throughput(rounds, seconds)
    if idle_rounds:
        idle(idle_rounds, idle_seconds)


if __name__ == "__main__":
    main()
