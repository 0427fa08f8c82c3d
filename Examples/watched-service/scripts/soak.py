#!/usr/bin/env python3
"""Soak: the service for MINUTES minutes with a stall every second on a random loop (a mix of
/block, /sleep, /starve and /handler-sleep, 150-400 ms each, 170-400 under --wrk) while /fast traffic goes on. Passes
when the service never crashes, every stall is recorded exactly once with its watchdog and class
(each record paired with the stall made on its watchdog within 2 s of its start; a stall missed or a
record of none is named; every stall made is kept in WORKDIR/made.csv),
no record names a Probe thread or frame, /fast never fails, and its resident memory (VmRSS) grows by at most 1 MB after the
warm-up: the first minute, or the first 5 minutes under wrk. The server alone stays flat under wrk (32.5 MB, anonymous
3.3 MB, +0.06 MB in 10 minutes, --no-probe, 2026-11-29); what grows in the warm-up is Probe's, tables filling to their
bounds.

Memory is sampled from /proc/PID/status every 5 stalls (VmRSS = RssAnon + RssFile + RssShmem) and
from /proc/PID/smaps_rollup at every minute; each series is printed per minute and every sample is
kept in WORKDIR/memory.csv, and the mappings whose resident memory changed from minute 1, and from the end of
the warm-up, to the end are listed (/proc/PID/smaps). The limit applies to the whole RSS, as the issue asks. Of its parts,
RssAnon is what a leak (memory kept per stall) would grow; RssFile counts the pages of mapped files
the process has touched (its code, and the unwind tables libunwind reads when sampling), which grow
as new parts of those files are read, are shared with the page cache and can be dropped and read
again under memory pressure. Both are printed.

All of Probe is on: the watchdogs, the flight recorder, the memory watch and the profile server
(asked for a goroutine dump and a 1 s cpu profile every minute). Descriptors (/proc/PID/fd) and
POSIX timers (/proc/PID/timers) are counted with the memory: at the end no timer may signal a thread that has
ended (Probe keeps one per thread it follows, so their number follows the pool's threads), and in a
soak of 10 minutes or more the descriptors' median in the last 5 minutes may not exceed the first 5's
(RSS: the 1 MB limit).

Usage: soak.py [MINUTES] [WORKDIR] [--no-probe] [--wrk] [--heap] [--trim-at-end]   (default 10 minutes; the service must be built)
--no-probe runs the same traffic against the service without Probe (stall records not checked):
the server's own memory growth, to set Probe's apart from it. --wrk: the /fast traffic comes from
`wrk -t1 -c8` (as fast as it goes) instead of two clients pacing at 5 ms, and the shortest stall is
170 ms: with every CPU busy the watchdog's looks wake late, and a loop's stall is timed from the look
that finds it (docs/probe-in-a-server.md, "Soak"). --heap: the service samples its allocations
(ProbeHeap) and the soak asks for /debug/pprof/heap every minute, as a continuous profiler would, keeping the
first, the warm-up's last and the end's (WORKDIR/heap-first.pb.gz, heap-warm.pb.gz, heap-end.pb.gz: `go tool pprof -top -diff_base heap-warm.pb.gz heap-end.pb.gz`
says what the memory grown since is held by). --trim-at-end: before stopping the service, calls malloc_trim(0)
in it through gdb and prints what RSS and each mapping gave back (memory malloc kept after frees)."""

import calendar
import csv
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from service import Failure, Service, check, fail, free_port

GROWTH_LIMIT_KIB = 1024
WARM_UP = {False: 60, True: 300}  # seconds after which growth counts, without and with --wrk
# The shortest stall made, without and with --wrk: 1.5x the threshold is caught by half-threshold
# looks on a machine with a free CPU; under wrk 4 of 64 loop stalls of 150-164 ms were missed (looks
# woke up to 12 ms late), none of 44 of 165-179 ms or any longer (2026-11-29, 30 minutes).
SHORTEST_STALL_MS = {False: 150, True: 170}
LIMITED = "rss"  # the /proc/PID/status figure the limit applies to (see the docstring)
STATUS_FIGURES = [("rss", "RSS"), ("anon", "RssAnon"), ("file", "RssFile"), ("shmem", "RssShmem"),
                  ("fds", "descriptors"), ("timers", "POSIX timers"), ("stale", "timers of ended threads")]
FLAT_WINDOW = 300  # seconds: the first and the last 5 minutes are compared for descriptors and timers
ROLLUP_FIELDS = ["Rss", "Anonymous", "Private_Dirty", "Private_Clean", "Shared_Clean", "Pss_Anon", "Pss_File"]


def fast_traffic(service, stop, counts):
    connection = service.connection(timeout=10)
    while not stop.is_set():
        try:
            status, _, _ = service.get("/fast", connection)
            counts["ok" if status == 200 else "failed"] += 1
        except Exception:  # a dropped keep-alive connection: count it and reconnect
            counts["failed"] += 1
            connection.close()
            connection = service.connection(timeout=10)
        time.sleep(0.005)
    connection.close()


def wrk_traffic(service, seconds):
    """wrk on /fast for SECONDS; its output is parsed when it ends (wrk_failures)."""
    return subprocess.Popen(["wrk", "-t1", "-c8", f"-d{int(seconds)}s", "--timeout", "5s",
                             f"http://127.0.0.1:{service.port}/fast"], stdout=subprocess.PIPE, text=True)


def wrk_failures(output):
    """(requests, failed) from wrk's report: non-2xx answers plus socket errors of any kind."""
    requests = re.search(r"(\d+) requests in", output)
    check(requests, f"wrk printed no request count:\n{output}")
    failed = sum(int(n) for n in re.findall(r"Non-2xx or 3xx responses: (\d+)", output))
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    failed += sum(int(n) for n in errors.groups()) if errors else 0
    return int(requests.group(1)), failed


def ask_profile_server(port):
    """A goroutine dump and a 1 s cpu profile from the profile server: both must answer 200."""
    for path in ("/debug/pprof/goroutine?debug=2", "/debug/pprof/profile?seconds=1"):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as answer:
            check(answer.status == 200, f"profile server: {path} answered {answer.status}")
            answer.read()


def save_heap_profile(port, path):
    """Asks for the heap profile and keeps it at `path` (None: read and dropped)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/debug/pprof/heap", timeout=30) as answer:
        check(answer.status == 200, f"profile server: /debug/pprof/heap answered {answer.status}")
        body = answer.read()
    if path:
        with open(path, "wb") as file:
            file.write(body)
        print(f"heap profile: {path}", flush=True)


def main():
    flags = {"--no-probe", "--wrk", "--heap", "--trim-at-end"}
    arguments = [argument for argument in sys.argv[1:] if argument not in flags]
    probe = "--no-probe" not in sys.argv[1:]
    use_wrk = "--wrk" in sys.argv[1:]
    heap = "--heap" in sys.argv[1:] and probe
    trim = "--trim-at-end" in sys.argv[1:]
    if trim and not shutil.which("gdb"):
        fail("--trim-at-end: gdb not found: apt-get install gdb")
    shortest = SHORTEST_STALL_MS[use_wrk]
    if use_wrk and not shutil.which("wrk"):
        fail("wrk not found: apt-get install wrk")
    minutes = float(arguments[0]) if len(arguments) > 0 else 10
    workdir = arguments[1] if len(arguments) > 1 else tempfile.mkdtemp(prefix="soak-")
    generator = random.Random(2026)
    service = Service(workdir, threshold_ms=100, probe=probe, profile_port=free_port() if probe else None,
                      heap_profile=heap)
    stop = threading.Event()
    counts = {"ok": 0, "failed": 0}
    clients = [] if use_wrk else [threading.Thread(target=fast_traffic, args=(service, stop, counts)) for _ in range(2)]
    for client in clients:
        client.start()
    wrk = wrk_traffic(service, minutes * 60 + 30) if use_wrk else None
    made, made_at, memory, per_minute = [], [], [], []  # memory: (seconds, {figure: KiB})
    mappings = {}  # RSS per mapping (Service.rss_by_mapping_kib) at minute 1, the warm-up's end and the end
    reported = False
    started, started_wall = time.monotonic(), time.time()
    try:
        while time.monotonic() - started < minutes * 60:
            tick = time.monotonic()
            check(service.process.poll() is None, f"the service died (exit {service.process.returncode})")
            kind = generator.choice(["block", "sleep", "starve", "handler-sleep"])
            ms = generator.randint(shortest, 400)
            loop = generator.randrange(2)
            on_pool = kind in ("starve", "handler-sleep")
            path = f"/{kind}?ms={ms}" + ("" if on_pool else f"&loop={loop}")
            wall = time.time()
            status, _, _ = service.get(path)
            check(status == 200, f"{path} answered {status}")
            made.append((kind, "cooperative-pool" if on_pool else f"event-loop-{loop}", ms, wall))
            made_at.append(tick - started)
            if len(made) % 5 == 0:
                figures = service.memory_kib()
                figures["fds"] = service.descriptors()
                figures["timers"], figures["stale"] = service.timers()
                memory.append((time.monotonic() - started, figures))
            if len(made) % 60 == 0:
                if probe:
                    ask_profile_server(service.profile_port)
                if heap:
                    # Served every minute, as a continuous profiler scrapes it, so that building one costs
                    # alike in every minute (served at minutes 1 and 5 only, the second came after the
                    # warm-up's end: +0.66 MB counted in its minute, 2026-12-07). Kept: the first, the
                    # warm-up's last and the end's.
                    warm_ends = time.monotonic() - started + 60 >= WARM_UP[use_wrk]
                    first = os.path.join(workdir, "heap-first.pb.gz")
                    warm = os.path.join(workdir, "heap-warm.pb.gz")
                    if not os.path.exists(first):
                        save_heap_profile(service.profile_port, first)
                    elif warm_ends and not os.path.exists(warm):
                        save_heap_profile(service.profile_port, warm)
                    else:
                        save_heap_profile(service.profile_port, None)
                per_minute.append((memory[-1][1], service.smaps_rollup_kib()))
                mappings.setdefault("minute 1", service.rss_by_mapping_kib())
                if time.monotonic() - started >= WARM_UP[use_wrk] - 30:
                    mappings.setdefault("warm-up", service.rss_by_mapping_kib())
                now = memory[-1][1]
                print(f"{(time.monotonic() - started) / 60:4.1f} min: {len(made)} stalls made, "
                      f"{len(service.stalls())} recorded, /fast ok {counts['ok']} failed {counts['failed']}, "
                      f"RSS {now.get('rss')} = anon {now.get('anon')} + file {now.get('file')} "
                      f"+ shmem {now.get('shmem')} KiB, {now.get('fds')} descriptors, {now.get('timers')} timers",
                      flush=True)
            time.sleep(max(0.0, 1.0 - (time.monotonic() - tick)))
        stop.set()
        for client in clients:
            client.join()
        if wrk:
            wrk.send_signal(signal.SIGINT)  # wrk stops early and still prints its report
            counts["ok"], counts["failed"] = wrk_failures(wrk.communicate(timeout=30)[0])
        dropped = sum(service.metric("probe_stall_records_dropped_total").values()) if probe else 0
        excused = service.metric("probe_stalls_excused_total") if probe else {}
        mappings["end"] = service.rss_by_mapping_kib()
        if trim:
            mappings["trimmed"] = trim_malloc(service)
        if heap:
            save_heap_profile(service.profile_port, os.path.join(workdir, "heap-end.pb.gz"))
        time.sleep(0.5)
        status, seconds = service.terminate()
        check(status == 0, f"the service exited with {status} on SIGTERM")

        report_mappings(mappings)  # first: what grew is read whichever check fails next
        write_made(made, workdir)
        recorded = service.stalls() if probe else []
        pairs, missed, extra = match(made, recorded) if probe else ([], [], [])
        expected_class = {"block": "cpu-bound", "sleep": "blocked", "starve": "starved", "handler-sleep": "blocked"}
        mismatches, blamed = [], []
        for index, stall in pairs:
            kind, watchdog, _, _ = made[index]
            if stall["classification"] != expected_class[kind]:
                mismatches.append(f"#{index}: made {kind} on {watchdog}, recorded {stall['classification']}")
            # Probe never blames itself: no Probe thread among the threads, no Probe frame in the group
            # or on top of the dominant stack.
            names = [thread.get("name") or "" for thread in stall.get("threads") or []]
            top = [frame.get("symbol") or "" for frame in (stall.get("topStack") or [])[:3]]
            if any(name.startswith("probe-") for name in names) or "probe" in stall["groupKey"].lower() \
                    or any(symbol.startswith(("cprobe_", "Probe.")) for symbol in top):
                blamed.append(f"#{index}: group {stall['groupKey'][:120]}, threads {names}")
        print(f"busy periods of the threshold or more excused (probe_stalls_excused_total): "
              f"{int(sum(excused.values()))} {excused or ''}", flush=True)
        check(not missed and not extra,
              f"{len(made)} stalls made, {len(recorded)} recorded; not recorded: "
              + ("; ".join(describe_made(made[index], started_wall) + excuse_logged(made[index], service.log_path)
                           for index in missed) or "none")
              + "; recorded but not made: "
              + ("; ".join(f"{stall['classification']} on {stall['watchdog']} at {stall['start']}, "
                           f"{stall['durationNanoseconds'] / 1e6:.0f} ms" for stall in extra) or "none"))
        check(not mismatches, f"{len(mismatches)} stalls recorded differently: {mismatches[:5]}")
        check(not blamed, f"{len(blamed)} records name a Probe thread or frame: {blamed[:5]}")
        check(counts["failed"] == 0, f"{counts['failed']} /fast requests failed")
        check(dropped == 0, f"probe_stall_records_dropped_total is {dropped:g}")
        warm_up = WARM_UP[use_wrk]
        growth = report_memory(memory, per_minute, workdir, warm_up)
        reported = True
        flat = report_flat(memory)
        if probe:
            ordered = sorted(pairs, key=lambda pair: pair[0])
            report_late_modules([stall for _, stall in ordered], [made_at[index] for index, _ in ordered])
        check(LIMITED in growth, "the soak was shorter than a minute: no memory to compare")
        check(growth[LIMITED] <= GROWTH_LIMIT_KIB,
              f"{dict(STATUS_FIGURES)[LIMITED]} grew by {growth[LIMITED]} KiB after the first {warm_up // 60} minute(s)")
        kinds = {kind: sum(1 for made_kind, _, _, _ in made if made_kind == kind) for kind in expected_class}
        recorded_text = "made and recorded once each" if probe else "made (not recorded: no Probe)"
        print(f"soak passed{'' if probe else ' (without Probe)'}: {minutes:g} min, {len(made)} stalls {recorded_text} ({kinds}), "
              f"/fast ok {counts['ok']} failed 0{' (wrk)' if use_wrk else ''}, {flat}, "
              f"RSS grew by {growth['rss']} KiB after the first {warm_up // 60} minute(s) "
              f"(RssAnon {growth['anon']}, RssFile {growth['file']}), SIGTERM exit 0 in {seconds:.2f} s")
    except Failure as failure:
        stop.set()
        if wrk and wrk.poll() is None:
            wrk.kill()
        service.kill()
        if memory and not reported:
            report_memory(memory, per_minute, workdir, WARM_UP[use_wrk])
        fail(str(failure))


def trim_malloc(service):
    """--trim-at-end: calls malloc_trim(0) in the service (gdb attaches, stopping it for about a second)
    and returns its mappings after. What the trim gives back is memory malloc kept after frees (free
    chunks in its arenas' pages), not live data: it tells allocator retention from growth that is held."""
    before = service.memory_kib()
    answer = subprocess.run(["gdb", "-p", str(service.process.pid), "-batch", "-nx",
                             "-ex", "call (int) malloc_trim(0)"], capture_output=True, text=True, timeout=60)
    after = service.memory_kib()
    check(answer.returncode == 0, f"gdb could not call malloc_trim: {answer.stderr.strip()[-300:]}")
    print(f"malloc_trim(0) at the end: RSS {before.get('rss')} -> {after.get('rss')} KiB, "
          f"RssAnon {before.get('anon')} -> {after.get('anon')} KiB", flush=True)
    return service.rss_by_mapping_kib()


def write_made(made, workdir):
    """Every stall made, in order (WORKDIR/made.csv): kind, watchdog, ms and the wall-clock second
    its request was sent, to find the record of any of them in stalls.jsonl."""
    with open(os.path.join(workdir, "made.csv"), "w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["index", "kind", "watchdog", "ms", "sent"])
        for index, (kind, watchdog, ms, wall) in enumerate(made):
            sent = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(wall)) + f".{int(wall % 1 * 1000):03d}Z"
            writer.writerow([index, kind, watchdog, ms, sent])


def match(made, recorded, slack=2.0):
    """Pairs each record with an unmatched stall made on its watchdog whose request was sent at most
    SLACK seconds from the record's start (a record's start is written to the second): of those, one of
    the record's class first, then the nearest in length, then the earliest (two stalls a second apart on
    one loop both qualify; the earliest alone once named the wrong one missed). Returns
    ([(made index, record)], indices of stalls never recorded, records of no stall made)."""
    expected = {"block": "cpu-bound", "sleep": "blocked", "starve": "starved", "handler-sleep": "blocked"}
    pairs, extra, taken = [], [], set()
    for stall in recorded:
        start = calendar.timegm(time.strptime(stall["start"][:19], "%Y-%m-%dT%H:%M:%S"))
        candidates = [(expected[kind] != stall["classification"], abs(ms - stall["durationNanoseconds"] / 1e6), index)
                      for index, (kind, watchdog, ms, wall) in enumerate(made) if index not in taken
                      and watchdog == stall["watchdog"] and abs(wall - start) <= slack]
        found = min(candidates)[2] if candidates else None
        if found is None:
            extra.append(stall)
        else:
            taken.add(found)
            pairs.append((found, stall))
    return pairs, [index for index in range(len(made)) if index not in taken], extra


def describe_made(stall, started_wall):
    kind, watchdog, ms, wall = stall
    return f"{kind} {ms} ms on {watchdog} at {(wall - started_wall) / 60:.2f} min"


def excuse_logged(stall, log_path):
    """The service's log lines within 2 s of a stall's request that say a busy period on its watchdog
    was excused (`not reported as a stall`), as ' (logged: …)', or '' when there are none."""
    _, watchdog, _, wall = stall
    found = []
    with open(log_path, errors="replace") as log:
        for line in log:
            if "not reported as a stall" not in line or f" on {watchdog} " not in line:
                continue
            logged = calendar.timegm(time.strptime(line[:19], "%Y-%m-%dT%H:%M:%S"))
            if abs(logged - wall) <= 2.0:
                found.append(line.split("probe: ", 1)[-1].strip()[-200:])
    return f" (logged: {' | '.join(found)})" if found else ""


def modules(stall):
    """The module files of every frame of a stall record (call tree, top stacks)."""
    found, nodes = set(), [stall.get("callTree")]
    frames = list(stall.get("topStack") or [])
    for thread in stall.get("threads") or []:
        frames += thread.get("topStack") or []
    while nodes:
        node = nodes.pop()
        if node:
            frames.append(node.get("frame") or {})
            nodes += node.get("children") or []
    # Only files (and the vDSO) have symbols to read; "[heap]" and the like have none.
    found.update(module for module in (frame.get("module") or "" for frame in frames)
                 if module.startswith("/") or module == "[vdso]")
    return found


def report_late_modules(recorded, made_at):
    """Modules first seen in a stall after the first minute: the stall symbolicator reads a
    module's ELF symbols the first time one of its addresses shows up, and keeps them (anonymous
    memory for the sorted symbol index, file pages of its tables), a step in RssAnon and RssFile
    that is once per module, not per stall. Sampling every millisecond, a stall's first and last
    samples may catch the thread in any code the service runs, so which module comes when varies
    from run to run."""
    first = {}
    for index, stall in enumerate(recorded):
        for module in modules(stall):
            first.setdefault(module, index)
    late = sorted((index, module) for module, index in first.items()
                  if index < len(made_at) and made_at[index] >= 60)
    names = ", ".join(f"{os.path.basename(module)} (stall {index}, {made_at[index] / 60:.1f} min)"
                      for index, module in late)
    print(f"modules first seen in a stall after the first minute: {names or 'none'}")


def report_mappings(mappings):
    """Which mappings' resident memory changed from minute 1, and from the warm-up's end, to the end,
    largest change first: says whether growth is anonymous (heap, stacks) or pages of a file, and of
    which module and segment (r-xp: code, and on these toolchains the unwind tables .eh_frame and
    .eh_frame_hdr that libunwind reads in place)."""
    for since, to in (("minute 1", "end"), ("warm-up", "end"), ("end", "trimmed")):
        if since not in mappings or to not in mappings:
            continue
        first, last = mappings[since], mappings[to]
        changes = sorted(((last.get(key, 0) - first.get(key, 0), key) for key in set(first) | set(last)),
                         key=lambda change: (-abs(change[0]), change[1]))
        changes = [(kib, key) for kib, key in changes if kib != 0]
        print(f"RSS by mapping, {since} to {'the end' if to == 'end' else 'after malloc_trim(0)'}: {sum(kib for kib, _ in changes):+d} KiB" + ("" if changes else ", no change"))
        for kib, key in changes[:12]:
            path, permissions = key.rsplit(" ", 1)
            print(f"  {kib:+6d} KiB  {os.path.basename(path) or path} {permissions}  ({first.get(key, 0)} -> {last.get(key, 0)})")


def report_flat(memory):
    """Descriptors, timers and RSS, first 5 minutes against the last 5: the descriptors' median in the
    last window may not exceed the first's (checked when the soak lasted 10 minutes or more: a leak
    raises the level every sample shows; a connection in flight at one sample, 64-65 with 5 of 348
    samples at 66 on 2026-11-29, does not); no timer may ever signal an ended thread. Returns a line
    for the summary."""
    end = memory[-1][0] if memory else 0
    first = [figures for at, figures in memory if at < FLAT_WINDOW]
    last = [figures for at, figures in memory if at >= end - FLAT_WINDOW]
    parts = []
    # At the last sample: Probe drops a thread's timer when it next looks, so one may lag an exit briefly.
    stale = (memory[-1][1].get("stale") or 0) if memory else 0
    check(stale == 0, f"{stale} POSIX timers signal threads that have ended (timers left behind)")
    for key, name in [("fds", "descriptors"), ("timers", "timers"), ("rss", "RSS KiB")]:
        values = lambda window: [figures[key] for figures in window if figures.get(key) is not None]
        if not values(first) or not values(last):
            parts.append(f"{name} not counted")
            continue
        most_first, most_last = max(values(first)), max(values(last))
        median_first, median_last = statistics.median(values(first)), statistics.median(values(last))
        parts.append(f"{name} {median_first:g} -> {median_last:g} (median, first vs last 5 min; most "
                     f"{most_first} -> {most_last})")
        if end >= 2 * FLAT_WINDOW and key == "fds":  # RSS has its own limit, timers follow the threads
            check(median_last <= median_first,
                  f"{name}: median {median_first:g} in the first 5 minutes, {median_last:g} in the last")
    parts.append("no timer of an ended thread")
    print("flat: " + "; ".join(parts))
    return "; ".join(parts)


def report_memory(memory, per_minute, workdir, warm_up):
    """Prints each figure at every minute and its growth after the warm-up (WARM_UP seconds; the largest
    sample from then on minus the first sample then); writes every sample to memory.csv.
    Returns {figure: growth in KiB}."""
    path = os.path.join(workdir, "memory.csv")
    with open(path, "w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["seconds"] + [name for _, name in STATUS_FIGURES])
        for at, kib in memory:
            writer.writerow([f"{at:.1f}"] + [kib.get(key, "") for key, _ in STATUS_FIGURES])
    print(f"memory samples (KiB, every 5 stalls): {path}")
    growth = {}
    after_warm_up = [kib for at, kib in memory if at >= warm_up]
    for key, name in STATUS_FIGURES:
        minutes = " · ".join(str(status.get(key, "?")) for status, _ in per_minute)
        unit = "" if key in ("fds", "timers", "stale") else " (KiB)"
        line = f"{name:>9}{unit} at minutes 1-{len(per_minute)}: {minutes}"
        values = [kib[key] for kib in after_warm_up if key in kib]
        if values:
            growth[key] = max(values) - values[0]
            line += f"; growth after the first {warm_up // 60} minute(s) {growth[key]:+d}"
        print(line + (" (limited)" if key == LIMITED else ""))
    for field in ROLLUP_FIELDS:
        if any(field in rollup for _, rollup in per_minute):
            values = " · ".join(str(rollup.get(field, "?")) for _, rollup in per_minute)
            print(f"  smaps_rollup {field} (KiB) at minutes 1-{len(per_minute)}: {values}")
    return growth


if __name__ == "__main__":
    main()
