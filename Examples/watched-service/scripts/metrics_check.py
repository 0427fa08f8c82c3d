#!/usr/bin/env python3
"""Probe's metrics as Prometheus reads them, checked with Prometheus's own tools.

Quick (default, run by .ci/run): the service with one stall of each kind, then
`promtool check metrics` on its /metrics. swift-metrics carries no help text, so promtool notes
"no help text" for each family a metrics backend made through it (Probe's README says why); that
lint, on exactly those families, is accepted, and nothing else.

--prometheus SECONDS: a real Prometheus (Debian's, our own config, loopback only, scraping every
1 s) scrapes the service for SECONDS (at least 60) under `wrk` load on /fast with one stall every
2 s (a cycle of /block, /sleep, /handler-sleep and /starve). Then, through its HTTP API: the target
was up at every scrape, `histogram_quantile(0.99, …probe_loop_lag_seconds_bucket…)` returns a value,
and the stalls per class add up to the stalls made.

Usage: metrics_check.py [WORKDIR] [--prometheus SECONDS]   (build first: swift build -c release)"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

from service import Service, check, fail, free_port

THRESHOLD_MS = 100
STALL_MS = 300
# The families Probe makes through swift-metrics, the only ones promtool may find without help.
PROBE_FAMILIES = {
    "probe_stalls_total", "probe_stall_duration_seconds", "probe_stall_records_dropped_total",
    "probe_loop_lag_seconds", "probe_loop_lag_max_seconds",
    "probe_memory_warnings_total", "probe_memory_usage_bytes", "probe_memory_limit_bytes", "probe_memory_rss_bytes",
    "probe_previous_exit_total", "probe_memory_records_dropped_total",
}
STALLS = [  # (path, class the stall is recorded as)
    (f"/block?ms={STALL_MS}&loop=0", "cpu-bound"),
    (f"/sleep?ms={STALL_MS}&loop=1", "blocked"),
    (f"/handler-sleep?ms={STALL_MS}", "blocked"),
    (f"/starve?ms={STALL_MS}", "starved"),
]


def promtool_check(service):
    promtool = shutil.which("promtool") or fail("promtool not found: run scripts/metrics-check.sh (installs prometheus)")
    status, body, _ = service.get("/metrics")
    check(status == 200, f"/metrics answered {status}")
    result = subprocess.run([promtool, "check", "metrics"], input=body, capture_output=True, text=True)
    lines = [line for line in (result.stdout + result.stderr).splitlines() if line.strip()]
    unexpected = []
    for line in lines:
        family, _, problem = line.partition(" ")
        if problem.strip() != "no help text" or family not in PROBE_FAMILIES:
            unexpected.append(line)
    check(not unexpected, "promtool check metrics found: " + "; ".join(unexpected))
    check(result.returncode in (0, 3) and (result.returncode == 0) == (not lines),
          f"promtool exited {result.returncode} with {lines}")
    print(f"ok: promtool check metrics: no format error; {len(lines)} families without help text "
          f"(swift-metrics carries none): {', '.join(sorted(l.split(' ')[0] for l in lines))}")


def query(port, promql):
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": promql})
    with urllib.request.urlopen(url, timeout=10) as response:
        answer = json.load(response)
    check(answer.get("status") == "success", f"Prometheus query {promql!r}: {answer}")
    return answer["data"]["result"]


def with_prometheus(service, workdir, seconds):
    prometheus = shutil.which("prometheus") or fail("prometheus not found: run scripts/metrics-check.sh")
    wrk = shutil.which("wrk") or fail("wrk not found: apt-get install wrk")
    port = free_port()
    config = os.path.join(workdir, "prometheus.yml")
    with open(config, "w") as file:
        file.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                   "scrape_configs:\n  - job_name: watched-service\n"
                   f"    static_configs:\n      - targets: ['127.0.0.1:{service.port}']\n")
    log = open(os.path.join(workdir, "prometheus.log"), "w")
    server = subprocess.Popen(
        [prometheus, f"--config.file={config}", f"--storage.tsdb.path={os.path.join(workdir, 'tsdb')}",
         f"--web.listen-address=127.0.0.1:{port}"], stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if query(port, "up") or time.monotonic() > deadline:
                    break
            except OSError:
                pass
            check(time.monotonic() < deadline, "Prometheus did not answer within 30 s (log: prometheus.log)")
            time.sleep(0.5)
        load = subprocess.Popen([wrk, "-t1", "-c16", f"-d{seconds + 5}s", f"http://127.0.0.1:{service.port}/fast"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        made = {}
        started = time.monotonic()
        index = 0
        while time.monotonic() - started < seconds:
            path, kind = STALLS[index % len(STALLS)]
            threading.Thread(target=service.get, args=(path,), daemon=True).start()
            made[kind] = made.get(kind, 0) + 1
            index += 1
            time.sleep(2)
        time.sleep(3)  # the last stall ends and is scraped
        load.wait()
        window = f"{int(time.monotonic() - started) + 5}s"
        ups = query(port, f"min_over_time(up[{window}])")
        scrapes = query(port, f"count_over_time(up[{window}])")
        check(ups and float(ups[0]["value"][1]) == 1, f"the target was down at some scrape: {ups}")
        lag = query(port, "histogram_quantile(0.99, sum by (le) (rate(probe_loop_lag_seconds_bucket[1m])))")
        check(lag and lag[0]["value"][1] not in ("NaN", "+Inf"), f"p99 loop lag: {lag}")
        by_class = {r["metric"]["class"]: round(float(r["value"][1]))
                    for r in query(port, "sum by (class) (probe_stalls_total)")}
        check(by_class == made, f"stalls per class in Prometheus {by_class}, made {made}")
        culprits = query(port, "topk(3, sum by (culprit) (probe_stalls_total))")
        print(f"ok: Prometheus scraped {scrapes[0]['value'][1]} times over {window}, always up; "
              f"p99 loop lag {float(lag[0]['value'][1]) * 1000:.1f} ms; stalls per class {by_class} = made; "
              f"top culprits {[(r['metric'].get('culprit'), r['value'][1]) for r in culprits]}")
    finally:
        server.terminate()
        server.wait(timeout=30)


def main():
    arguments = sys.argv[1:]
    seconds = None
    if "--prometheus" in arguments:
        at = arguments.index("--prometheus")
        seconds = int(arguments[at + 1])
        check(seconds >= 60, "--prometheus takes at least 60 seconds")
        del arguments[at:at + 2]
    workdir = arguments[0] if arguments else tempfile.mkdtemp(prefix="metrics-check-")
    service = Service(workdir, threshold_ms=THRESHOLD_MS)
    try:
        if seconds is None:
            for path, _ in STALLS:
                status, _, _ = service.get(path)
                check(status == 200, f"{path} answered {status}")
            time.sleep(0.3)
            promtool_check(service)
        else:
            with_prometheus(service, workdir, seconds)
    finally:
        service.terminate()
    print("metrics check: passed")


if __name__ == "__main__":
    main()
