#!/usr/bin/env python3
"""The watched-service integration test (run by .ci/run): one stall per /block, /sleep, /starve
and /handler-sleep call (the last one alone on the pool, recorded with the handler's function), each in the JSON-lines file with its watchdog and class, counted in /metrics;
/fast served on the other loop throughout; a graceful SIGTERM within 2 s that loses no stall; a
whole-process profile from --profile-port under /work load that names the route's function; the
flight recorder's `before` of a /phases stall and its /debug/pprof/flight dump.

Usage: integration_test.py [WORKDIR]   (the service must be built: swift build -c release)"""

import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

from service import Failure, Service, check, fail, free_port, loop_of, symbols

THRESHOLD_MS = 100
STALL_MS = 600


def fast_on_other_loops_during(service, path, busy_loop):
    """Runs `path` (a stall of `busy_loop`) and, while it lasts, /fast on kept-alive connections
    of the other loops: each must answer while the stall is still going on."""
    connections = []
    for _ in range(8):
        connection = service.connection()
        status, body, _ = service.get("/fast", connection)
        check(status == 200, f"/fast answered {status}")
        if loop_of(body) != busy_loop:
            connections.append(connection)
        else:
            connection.close()
    check(connections, f"no connection landed on a loop other than {busy_loop} in 8 tries")

    result = {}

    def stall():
        result["status"], _, result["seconds"] = service.get(path)
        result["ended"] = time.monotonic()

    stalling = threading.Thread(target=stall)
    stalling.start()
    time.sleep(0.15)
    answered = []
    for connection in connections:
        status, body, seconds = service.get("/fast", connection)
        check(status == 200, f"/fast during {path} answered {status}")
        answered.append((time.monotonic(), seconds))
        connection.close()
    stalling.join()
    check(result.get("status") == 200, f"{path} answered {result.get('status')}")
    check(result["seconds"] >= STALL_MS / 1000, f"{path} took only {result['seconds']:.3f} s")
    for at, seconds in answered:
        check(at < result["ended"], f"/fast during {path} was answered only after the stall ended")
        check(seconds < 0.25, f"/fast on another loop took {seconds * 1000:.0f} ms during {path}")
    print(f"ok: {path}: {len(answered)} /fast on other loops answered during it "
          f"(slowest {max(s for _, s in answered) * 1000:.1f} ms)")


def process_cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def flight_recorder(service, port, workdir):
    """A stall that computes in phase A for 300 ms, then sleeps in phase B: its record's `before`
    (the flight recorder's CPU samples of the loop's thread) has phase A on top, and
    /debug/pprof/flight, read by `go tool pprof`, holds the /work route's function. Stalls recorded
    before it are not its (on a machine busy beside the test, the /work load's 20 ms requests were
    recorded as pool stalls of 108 and 234 ms, 2026-12-07)."""
    earlier = len(service.stalls())
    status, _, _ = service.get("/phases?ms=300&loop=0")
    check(status == 200, f"/phases answered {status}")
    deadline = time.monotonic() + 5
    while len(service.stalls()) == earlier and time.monotonic() < deadline:
        time.sleep(0.05)
    stalls = service.stalls()[earlier:]
    check(len(stalls) == 1 and stalls[0]["watchdog"] == "event-loop-0",
          f"{[s['watchdog'] for s in stalls]} stalled after /phases, not event-loop-0 once")
    before = stalls[0].get("before")
    check(before, f"the /phases stall has no `before`: {sorted(stalls[0])}")
    names = symbols(before["topStack"])
    check(any("computeInPhaseA(milliseconds:" in name for name in names),
          f"computeInPhaseA is not in the /phases stall's `before` top stack: {names[:8]}")
    print(f"ok: the /phases stall's `before` ({before['sampleCount']} samples at {before['rate']} Hz) has "
          "computeInPhaseA(milliseconds:) on top")
    path = os.path.join(workdir, "flight.pb.gz")
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/debug/pprof/flight", timeout=10) as response:
        check(response.status == 200, f"/debug/pprof/flight answered {response.status}")
        with open(path, "wb") as out:
            out.write(response.read())
    top = subprocess.run(["go", "tool", "pprof", "-top", path], capture_output=True, text=True)
    check(top.returncode == 0, f"go tool pprof -top failed on the flight dump: {top.stderr[-500:]}")
    check("computeTheWorkRoute" in top.stdout, f"the flight dump lacks the /work route:\n{top.stdout[:2000]}")
    print("ok: /debug/pprof/flight read by go tool pprof, the /work load in it")


def http_status(url):
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def heap_profile(workdir):
    """--heap-profile: 64 MiB kept by /allocate shows in /debug/pprof/heap, read over HTTP by `go
    tool pprof`: KeptMemory.keep holds most of the in-use space, about 64 MiB of it."""
    port = free_port()
    service = Service(os.path.join(workdir, "heap"), threshold_ms=THRESHOLD_MS, profile_port=port, heap_profile=True)
    try:
        status, body, _ = service.get("/allocate?mib=64")
        check(status == 200, f"/allocate?mib=64 answered {status}: {body!r}")
        url = f"http://127.0.0.1:{port}/debug/pprof/heap"
        top = subprocess.run(["go", "tool", "pprof", "-sample_index=inuse_space", "-top", url],
                             capture_output=True, text=True, env=dict(os.environ, PPROF_TMPDIR=workdir))
        check(top.returncode == 0, f"go tool pprof -top {url} failed: {top.stderr[-500:]}")
        lines = top.stdout.splitlines()
        header = next((i for i, line in enumerate(lines) if "flat%" in line), None)
        check(header is not None and header + 1 < len(lines), f"no rows in:\n{top.stdout[:2000]}")
        first = lines[header + 1]
        check("KeptMemory.keep" in first, f"KeptMemory.keep is not first in use:\n{top.stdout[:3000]}")
        total = re.search(r"of ([0-9.]+)MB total", top.stdout)
        check(total, f"no total in:\n{top.stdout[:500]}")
        in_use = float(total.group(1))
        kept = 64 * 2**20 / 1e6
        check(abs(in_use - kept) <= 0.25 * kept, f"{in_use} MB in use in the heap profile, {kept:.1f} MB kept")
        print(f"ok: /debug/pprof/heap after /allocate?mib=64: KeptMemory.keep first, {in_use} MB in use")
        # The switch heap_cost.py measures with: stopped, the route says why; started, /orders is sampled.
        check(service.get("/heap-sampler?on=0")[0] == 200, "/heap-sampler?on=0 failed")
        answer = http_status(url)
        check(answer == 404, f"{url} answered {answer} with the sampler stopped")
        check(service.get("/heap-sampler?on=1")[0] == 200, "/heap-sampler?on=1 failed")
        for _ in range(50):
            check(service.get("/orders?n=100")[0] == 200, "/orders?n=100 failed")
        check(service.get("/heap-sampler?on=2")[0] == 400, "/heap-sampler?on=2 was not refused")
        answer = http_status(url)
        check(answer == 200, f"{url} answered {answer} with the sampler started again")
        print("ok: /heap-sampler stops (404) and starts the sampler again")
        status, _ = service.terminate()
        check(status == 0, f"the heap-profiled instance exited with {status} on SIGTERM")
    finally:
        if service.process.poll() is None:
            service.kill()


def profile_under_load(workdir):
    """A 2 s cpu profile from --profile-port while two clients keep /work?ms=20 busy: `go tool
    pprof` reads it and names the route's function, whose share of the samples is at least half."""
    port = free_port()
    service = Service(os.path.join(workdir, "profile"), threshold_ms=THRESHOLD_MS, profile_port=port)
    try:
        stop = threading.Event()

        def load():
            while not stop.is_set():
                status, _, _ = service.get("/work?ms=20")
                check(status == 200, f"/work answered {status}")

        clients = [threading.Thread(target=load) for _ in range(2)]
        for client in clients:
            client.start()
        time.sleep(0.5)
        path = os.path.join(workdir, "profile.pb.gz")
        url = f"http://127.0.0.1:{port}/debug/pprof/profile?seconds=2"
        cpu_before = process_cpu_seconds(service.process.pid)
        with urllib.request.urlopen(url, timeout=10) as response:
            check(response.status == 200, f"{url} answered {response.status}")
            body = response.read()
        process_cpu = process_cpu_seconds(service.process.pid) - cpu_before
        with open(path, "wb") as out:
            out.write(body)
        stop.set()
        for client in clients:
            client.join()
        top = subprocess.run(["go", "tool", "pprof", "-top", "-cum", path], capture_output=True, text=True)
        check(top.returncode == 0, f"go tool pprof -top failed: {top.stderr[-500:]}")
        rows = [line.split() for line in top.stdout.splitlines() if "computeTheWorkRoute" in line]
        check(rows, f"computeTheWorkRoute is not in the profile:\n{top.stdout[:3000]}")
        share = float(rows[0][4].rstrip("%"))  # flat flat% sum% cum cum% name
        check(share >= 50, f"computeTheWorkRoute has {share}% of the samples (cum):\n{top.stdout[:3000]}")
        # "Showing nodes accounting for 1.9s, 98% of 1.95s total": the profile's CPU time against the
        # process's over the request (which also spans the response's sending and Probe's own thread).
        total = re.search(r"of ([0-9.]+)(ms|s) total", top.stdout)
        check(total, f"no total in go tool pprof's output:\n{top.stdout[:500]}")
        profiled = float(total.group(1)) / (1000 if total.group(2) == "ms" else 1)
        check(abs(profiled - process_cpu) <= 0.1 * process_cpu,
              f"the profile holds {profiled:.2f} s of CPU, the process used {process_cpu:.2f} s meanwhile")
        print(f"ok: a 2 s profile from --profile-port under /work load: computeTheWorkRoute {share:.0f}% (cum), "
              f"{profiled:.2f} s of CPU in the profile, {process_cpu:.2f} s used by the process meanwhile")
        flight_recorder(service, port, workdir)
        status, _ = service.terminate()
        check(status == 0, f"the profiled instance exited with {status} on SIGTERM")
    except Failure:
        service.kill()
        raise


def main():
    workdir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="watched-service-")
    profiles = os.path.join(workdir, "profiles")
    breadcrumb = os.path.join(workdir, "probe.breadcrumb")
    if os.path.exists(breadcrumb):
        os.remove(breadcrumb)
    service = Service(workdir, threshold_ms=THRESHOLD_MS, pprof_dir=profiles, breadcrumb=breadcrumb)
    try:
        for _ in range(5):
            status, body, _ = service.get("/fast")
            check(status == 200 and body.startswith("ok event-loop-"), f"/fast answered {status}: {body!r}")
        status, body, _ = service.get("/block?ms=abc")
        check(status == 400, f"/block?ms=abc answered {status}, not 400")
        check(service.stalls() == [], f"stalls before any was made: {service.stalls()}")

        fast_on_other_loops_during(service, f"/block?ms={STALL_MS}&loop=0", busy_loop=0)
        fast_on_other_loops_during(service, f"/sleep?ms={STALL_MS}&loop=0", busy_loop=0)
        status, _, seconds = service.get(f"/starve?ms={STALL_MS}")
        check(status == 200 and seconds >= STALL_MS / 1000, f"/starve answered {status} after {seconds:.3f} s")
        print(f"ok: /starve?ms={STALL_MS} answered after {seconds * 1000:.0f} ms")
        # One request alone whose plain async handler blocks its pool thread (the rest of the pool free).
        time.sleep(0.3)
        status, _, seconds = service.get(f"/handler-sleep?ms={STALL_MS}")
        check(status == 200 and seconds >= STALL_MS / 1000, f"/handler-sleep answered {status} after {seconds:.3f} s")
        print(f"ok: /handler-sleep?ms={STALL_MS} answered after {seconds * 1000:.0f} ms")

        deadline = time.monotonic() + 5
        while len(service.stalls()) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # a fifth (wrong) record would show up by now
        stalls = service.stalls()
        check(len(stalls) == 4, f"{len(stalls)} stalls recorded, not 4: "
              + ", ".join(f"{s['watchdog']}/{s['classification']}" for s in stalls))
        block, sleep, starve, handler = stalls
        written = sorted(os.listdir(profiles))
        check(len(written) == 4 and all(name.startswith("stall-") and name.endswith(".pb") for name in written),
              f"--pprof-dir holds {written}, not one profile per stall")
        print(f"ok: one pprof file per stall in --pprof-dir ({', '.join(written[:2])}, …)")
        for stall, watchdog, kind in [(block, "event-loop-0", "cpu-bound"), (sleep, "event-loop-0", "blocked"),
                                      (starve, "cooperative-pool", "starved"),
                                      (handler, "cooperative-pool", "blocked")]:
            check(stall["watchdog"] == watchdog and stall["classification"] == kind,
                  f"expected a {kind} stall of {watchdog}, got {stall['classification']} of {stall['watchdog']}")
            # An event loop's stall is timed from the first look that finds it busy: at rest the
            # loops are looked at every half threshold, so the record may be up to that (and a
            # tick of the watchdog's) shorter than the stall made.
            check(stall["durationNanoseconds"] >= (STALL_MS - 2 * THRESHOLD_MS) * 1e6,
                  f"{watchdog} stall of {stall['durationNanoseconds'] / 1e6:.0f} ms, shorter than the {STALL_MS} ms "
                  f"made minus twice the threshold")
            print(f"ok: {kind} stall of {watchdog}, {stall['durationNanoseconds'] / 1e6:.0f} ms, "
                  f"{stall['sampleCount']} samples")
        names = symbols(block["topStack"])
        check(any("blockTheEventLoop(milliseconds:" in name for name in names),
              f"blockTheEventLoop is not in the dominant stack of the /block stall: {names[:8]}")
        print("ok: the /block stall's dominant stack names blockTheEventLoop(milliseconds:)")
        check(len(starve.get("threads") or []) >= 1, "the starvation carries no pool thread's stack")
        waits = [t for t in starve["threads"]
                 if any("starveTheCooperativePool" in n for n in symbols(t.get("topStack", [])))]
        check(waits, "no pool thread's stack shows the synchronous wait of starveTheCooperativePool")
        print(f"ok: the starvation sampled {len(starve['threads'])} pool threads, "
              f"{len(waits)} waiting in starveTheCooperativePool")
        for stall in stalls:
            for name in [stall["groupKey"]] + [t.get("name") or "" for t in stall.get("threads") or []]:
                check("probe" not in name.lower(),
                      f"a {stall['watchdog']} record blames Probe: {name[:200]}")
        check(handler["groupKey"].startswith("watched_service.sleepInTheHandler(milliseconds:"),
              f"the /handler-sleep stall's group does not start with the handler's function: {handler['groupKey'][:200]}")
        check(handler.get("waitingIn") == "clock_nanosleep" and not handler.get("threads"),
              f"the /handler-sleep stall: waiting in {handler.get('waitingIn')}, threads {handler.get('threads')}")
        print("ok: the /handler-sleep stall is its pool thread's, blocked in clock_nanosleep, "
              "grouped by sleepInTheHandler(milliseconds:)")

        totals = service.metric("probe_stalls_total")
        check(sum(totals.values()) == 4, f"probe_stalls_total sums to {sum(totals.values())}, not 4: {totals}")

        def total(**labels):
            return sum(v for k, v in totals.items() if all(f'{name}="{value}"' in k for name, value in labels.items()))

        check(total(watchdog="event-loop-0") == 2 and total(watchdog="cooperative-pool") == 2,
              f"probe_stalls_total by watchdog: {totals}")
        by_class = {c: total(**{"class": c}) for c in ["cpu-bound", "blocked", "starved"]}
        check(by_class == {"cpu-bound": 1, "blocked": 2, "starved": 1}, f"probe_stalls_total by class: {by_class}")
        for culprit in ["watched_service.blockTheEventLoop(milliseconds:)",
                        "watched_service.sleepInTheHandler(milliseconds:)"]:
            check(total(culprit=culprit) == 1, f"no stall counted for culprit {culprit}: {totals}")
        durations = service.metric("probe_stall_duration_seconds_count")
        check(sum(durations.values()) == 4,
              f"probe_stall_duration_seconds_count sums to {sum(durations.values())}: {durations}")
        bounds = sorted(float(k.split('le="')[1].split('"')[0])
                        for k in service.metric("probe_stall_duration_seconds_bucket") if 'le="+Inf"' not in k)
        check(abs(bounds[0] - THRESHOLD_MS / 1000) < 1e-9, f"the stall-duration buckets start at {bounds[0]} s")
        lags = service.metric("probe_loop_lag_seconds_count")
        check(all(lags.get(f'{{watchdog="{w}"}}', 0) > 0 for w in ["event-loop-0", "event-loop-1"]),
              f"probe_loop_lag_seconds_count: {lags}")
        max_lag = service.metric("probe_loop_lag_max_seconds").get('{watchdog="event-loop-0"}', 0)
        check(max_lag >= THRESHOLD_MS / 1000, f"probe_loop_lag_max_seconds of event-loop-0 is {max_lag} s")
        print(f"ok: /metrics: probe_stalls_total by class {by_class}, culprits named; "
              f"stall buckets from {bounds[0]} s; loop lags {lags}, event-loop-0's max {max_lag:.3f} s")

        # A stall under way when SIGTERM comes: shutdown within 2 s, and the stall is recorded.
        ongoing = threading.Thread(target=lambda: service.get(f"/block?ms={STALL_MS}&loop=1"))
        ongoing.start()
        time.sleep(0.3)
        status, seconds = service.terminate()
        ongoing.join()
        check(status == 0, f"the service exited with {status} on SIGTERM")
        check(seconds <= 2.0, f"the graceful shutdown took {seconds:.2f} s (more than 2 s)")
        stalls = service.stalls()
        check(len(stalls) == 5 and stalls[4]["watchdog"] == "event-loop-1",
              f"after SIGTERM: {[(s['watchdog'], s['ongoing']) for s in stalls]}")
        print(f"ok: SIGTERM during a stall: exit 0 after {seconds:.2f} s, the stall recorded "
              f"({'ongoing' if stalls[4]['ongoing'] else 'ended'}, {stalls[4]['durationNanoseconds'] / 1e6:.0f} ms)")

        # The next instance on the same breadcrumb: the graceful stop above reads as clean, in the
        # log and in /metrics; memory it keeps shows in Probe's RSS gauge within a check or two.
        first_pid = service.process.pid
        service = Service(workdir, threshold_ms=THRESHOLD_MS, breadcrumb=breadcrumb)
        exits = service.metric("probe_previous_exit_total")
        check(exits == {'{reason="clean"}': 1.0}, f"probe_previous_exit_total after a graceful stop: {exits}")
        with open(service.log_path) as log:
            said = [line for line in log if "previous instance" in line]
        check(any(f"(pid {first_pid}) ended: clean" in line for line in said), f"the log said: {said}")
        def anon():
            return service.metric("probe_memory_rss_bytes").get('{watch="memory",kind="anon"}', 0)
        before = anon()
        status, body, _ = service.get("/allocate?mib=64")
        check(status == 200, f"/allocate?mib=64 answered {status}: {body!r}")
        deadline = time.monotonic() + 5
        while anon() < before + 60 * 2**20 and time.monotonic() < deadline:
            time.sleep(0.2)
        after = anon()
        check(after >= before + 60 * 2**20, f"probe_memory_rss_bytes anon {before} -> {after} after keeping 64 MiB")
        status, _ = service.terminate()
        check(status == 0, f"the second instance exited with {status} on SIGTERM")
        print(f"ok: the next instance read the previous exit as clean (pid {first_pid}); "
              f"anon RSS {before / 2**20:.0f} -> {after / 2**20:.0f} MiB after /allocate?mib=64")
        profile_under_load(workdir)
        heap_profile(workdir)
    except Failure as failure:
        service.kill()
        print(f"service log ({service.log_path}):", file=sys.stderr)
        with open(service.log_path) as log:
            sys.stderr.write(log.read()[-4000:])
        fail(str(failure))
    print("watched-service integration test: passed")


if __name__ == "__main__":
    main()
