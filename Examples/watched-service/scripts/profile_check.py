#!/usr/bin/env python3
"""Probe's whole-process profile against an independent profiler, under load: wrk keeps /work?ms=5
and /fast busy while a 10 s cpu profile is fetched from --profile-port and `perf record -e cpu-clock
--call-graph fp` samples the same process over the same seconds. Prints each one's top functions by
self samples (both at 997 Hz, or PROFILE_CHECK_RATE); fails unless the top 5 are the same set (up
to a tie within 1 point at the 5th place) with each share within 5 percentage points, the /work
route's function is among the service's own top 3 by cum, and the profile's CPU time is within 10%
of /proc/PID/stat's.

Usage: profile_check.py [WORKDIR]   (built service; perf, wrk and go on PATH: scripts/profile-check.sh)"""

import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from integration_test import process_cpu_seconds
from service import Failure, Service, check, fail, free_port

SECONDS = 10
TOP = 5
TIE = 1.0  # percentage points
RATE = int(os.environ.get("PROFILE_CHECK_RATE", "997"))  # both profilers: perf -F and Probe's rate=


def demangled(names):
    out = subprocess.run(["swift-demangle"], input="\n".join(names), capture_output=True, text=True).stdout
    return out.splitlines()


def pprof_self_shares(path):
    """{function: % of samples} from go tool pprof -top (flat), every row."""
    top = subprocess.run(["go", "tool", "pprof", "-top", "-nodecount=200", path], capture_output=True, text=True)
    check(top.returncode == 0, f"go tool pprof failed: {top.stderr[-500:]}")
    shares = {}
    for line in top.stdout.splitlines():
        m = re.match(r"\s*[0-9.]+(?:ms|s|us|ns)?\s+([0-9.]+)%\s+[0-9.]+%\s+[0-9.]+(?:ms|s|us|ns)?\s+[0-9.]+%\s+(.+)$", line)
        if m:
            key = normalized(m.group(2).strip())
            shares[key] = shares.get(key, 0) + float(m.group(1))
    total = re.search(r"of ([0-9.]+)(ms|s) total", top.stdout)
    seconds = float(total.group(1)) / (1000 if total.group(2) == "ms" else 1) if total else 0
    return shares, seconds


def service_top_by_cum(path, count=3):
    """The first `count` functions of the service's own module by cum (`go tool pprof -top -cum
    -show=^watched_service`): the thread-start, libdispatch and NIO frames under every stack rank
    above any route by cum in the whole profile, so the route is looked for among the service's code."""
    top = subprocess.run(["go", "tool", "pprof", "-top", "-cum", "-show=^watched_service", path],
                         capture_output=True, text=True)
    check(top.returncode == 0, f"go tool pprof -cum failed: {top.stderr[-500:]}")
    rows = [m.group(1).strip() for line in top.stdout.splitlines()
            if (m := re.match(r"\s*[0-9.]+(?:ms|s|us|ns)?\s+[0-9.]+%\s+[0-9.]+%\s+[0-9.]+(?:ms|s|us|ns)?\s+[0-9.]+%\s+(.+)$", line))]
    return rows[:count]


def perf_self_shares(data):
    """{function: % of samples} from perf's samples, each counted at its innermost user-space frame:
    where Probe's signal finds a thread, so kernel time lands on the system call's wrapper in both."""
    script = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym,dso"], capture_output=True, text=True)
    check(script.returncode == 0, f"perf script failed: {script.stderr[-500:]}")
    counts, total = {}, 0
    for block in script.stdout.split("\n\n"):
        frames = [line.strip() for line in block.splitlines() if line.startswith("\t") or line.startswith(" ")]
        for frame in frames:
            m = re.match(r"[0-9a-f]+\s+(.+?)\s+\((.+)\)$", frame)
            if m and m.group(2) != "[kernel.kallsyms]":
                counts[m.group(1)] = counts.get(m.group(1), 0) + 1
                total += 1
                break
    names = list(counts)
    shares = {}
    for name, readable in zip(names, demangled(names)):
        key = normalized(readable)
        shares[key] = shares.get(key, 0) + 100 * counts[name] / max(total, 1)
    return shares


def normalized(name):
    """One spelling for both tools: libc's versioned aliases and internal underscores dropped."""
    name = re.sub(r"@@?GLIBC[0-9_.]*$", "", name)
    return re.sub(r"^(__)?GI_+(libc_)?", "", name).lstrip("_")


def main():
    workdir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="profile-check-")
    port = free_port()
    service = Service(os.path.join(workdir, "service"), profile_port=port)
    try:
        base = f"http://127.0.0.1:{service.port}"
        loads = [subprocess.Popen(["wrk", "-t1", "-c2", f"-d{SECONDS + 6}s", base + path],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                 for path in ("/work?ms=5", "/fast")]
        time.sleep(2)
        data = os.path.join(workdir, "perf.data")
        perf = subprocess.Popen(["perf", "record", "-q", "-e", "cpu-clock", "-F", str(RATE), "--call-graph", "fp",
                                 "-p", str(service.process.pid), "-o", data, "--", "sleep", str(SECONDS)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        cpu_before = process_cpu_seconds(service.process.pid)
        # At perf's rate: the two profiles' shares then carry the same sampling error (±0.4 points
        # for a 2% function over 10 s of two busy CPUs, against ±1.2 at Probe's default 100 Hz).
        url = f"http://127.0.0.1:{port}/debug/pprof/profile?seconds={SECONDS}&rate={RATE}"
        with urllib.request.urlopen(url, timeout=SECONDS + 20) as response:
            check(response.status == 200, f"{url} answered {response.status}")
            body = response.read()
        process_cpu = process_cpu_seconds(service.process.pid) - cpu_before
        _, perf_errors = perf.communicate(timeout=30)
        check(perf.returncode == 0, f"perf record failed ({perf.returncode}): {perf_errors[-500:]}")
        for load in loads:
            load.wait(timeout=30)
        path = os.path.join(workdir, "profile.pb.gz")
        with open(path, "wb") as out:
            out.write(body)

        probe, profiled = pprof_self_shares(path)
        # Probe's pseudo-frames ([cpu between samples], [not sampled: …]) are time it could not put on
        # a stack: said, and left out of the comparison (the shares are of what both attributed).
        unattributed = sum(share for name, share in probe.items() if name.startswith("["))
        probe = {name: 100 * share / (100 - unattributed) for name, share in probe.items() if not name.startswith("[")}
        perf_shares = perf_self_shares(data)
        top_probe = sorted(probe, key=probe.get, reverse=True)[:TOP]
        top_perf = sorted(perf_shares, key=perf_shares.get, reverse=True)[:TOP]
        print(f"{'function':90} {'Probe':>7} {'perf':>7}")
        for name in dict.fromkeys(top_probe + top_perf):
            print(f"{name[:90]:90} {probe.get(name, 0):6.1f}% {perf_shares.get(name, 0):6.1f}%")
        print(f"CPU: {profiled:.2f} s in the profile ({unattributed:.1f}% on Probe's pseudo-frames), "
              f"{process_cpu:.2f} s used by the process meanwhile")
        # The same set, but for a tie at the boundary: a function in one top 5 and not the other
        # must be within TIE points of the other's 5th share (the tail's functions sit 0.1–0.5
        # points apart, so which of them is 5th changes from run to run in either profiler).
        for name in set(top_probe) ^ set(top_perf):
            shares, fifth = (perf_shares, perf_shares[top_perf[-1]]) if name in top_probe else \
                (probe, probe[top_probe[-1]])
            check(shares.get(name, 0) >= fifth - TIE,
                  f"top {TOP} differ beyond a tie: {name[:60]} has {shares.get(name, 0):.1f}% where the "
                  f"5th has {fifth:.1f}%: Probe {top_probe}, perf {top_perf}")
        by_cum = service_top_by_cum(path)
        print(f"the service's top 3 by cum: {[name[:60] for name in by_cum]}")
        check(any("computeTheWorkRoute" in name for name in by_cum),
              f"the /work route's function is not among the service's top 3 by cum: {by_cum}")
        worst = max(abs(probe.get(name, 0) - perf_shares.get(name, 0)) for name in set(top_probe) | set(top_perf))
        check(worst <= 5, f"a top-{TOP} share differs by {worst:.1f} percentage points")
        check(abs(profiled - process_cpu) <= 0.1 * process_cpu, "the profile's CPU time is more than 10% off")
        status, _ = service.terminate()
        check(status == 0, f"the service exited with {status} on SIGTERM")
        ties = set(top_probe) ^ set(top_perf)
        print(f"profile check: passed (top {TOP} the same set{' up to a tie at the 5th place' if ties else ''}, "
              f"largest share difference {worst:.1f} points)")
    except Failure as failure:
        service.kill()
        fail(str(failure))


if __name__ == "__main__":
    main()
