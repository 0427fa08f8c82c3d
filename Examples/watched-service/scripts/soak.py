#!/usr/bin/env python3
"""Soak: the service for MINUTES minutes with a stall every second on a random loop (a mix of
/block, /sleep and /starve, 150-400 ms each) while /fast traffic goes on. Passes when the
service never crashes, every stall is recorded exactly once with its watchdog and class, /fast
never fails, and RSS grows by at most 1 MB after the first minute.

Usage: soak.py [MINUTES] [WORKDIR] [--no-probe]   (default 10 minutes; the service must be built)
--no-probe runs the same traffic against the service without Probe (stall records not checked):
the server's own RSS growth, to set Probe's apart from it."""

import random
import sys
import tempfile
import threading
import time

from service import Failure, Service, check, fail

RSS_GROWTH_LIMIT_KIB = 1024


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


def main():
    arguments = [argument for argument in sys.argv[1:] if argument != "--no-probe"]
    probe = "--no-probe" not in sys.argv[1:]
    minutes = float(arguments[0]) if len(arguments) > 0 else 10
    workdir = arguments[1] if len(arguments) > 1 else tempfile.mkdtemp(prefix="soak-")
    generator = random.Random(2026)
    service = Service(workdir, threshold_ms=100, probe=probe)
    stop = threading.Event()
    counts = {"ok": 0, "failed": 0}
    clients = [threading.Thread(target=fast_traffic, args=(service, stop, counts)) for _ in range(2)]
    for client in clients:
        client.start()
    made, rss = [], []
    started = time.monotonic()
    try:
        while time.monotonic() - started < minutes * 60:
            tick = time.monotonic()
            check(service.process.poll() is None, f"the service died (exit {service.process.returncode})")
            kind = generator.choice(["block", "sleep", "starve"])
            ms = generator.randint(150, 400)
            loop = generator.randrange(2)
            path = f"/{kind}?ms={ms}" + (f"&loop={loop}" if kind != "starve" else "")
            status, _, _ = service.get(path)
            check(status == 200, f"{path} answered {status}")
            made.append((kind, "cooperative-pool" if kind == "starve" else f"event-loop-{loop}", ms))
            if len(made) % 5 == 0:
                rss.append((time.monotonic() - started, service.rss_kib()))
            if len(made) % 60 == 0:
                print(f"{(time.monotonic() - started) / 60:4.1f} min: {len(made)} stalls made, "
                      f"{len(service.stalls())} recorded, /fast ok {counts['ok']} failed {counts['failed']}, "
                      f"RSS {rss[-1][1]} KiB", flush=True)
            time.sleep(max(0.0, 1.0 - (time.monotonic() - tick)))
        stop.set()
        for client in clients:
            client.join()
        time.sleep(0.5)
        status, seconds = service.terminate()
        check(status == 0, f"the service exited with {status} on SIGTERM")

        recorded = service.stalls() if probe else [None] * len(made)
        expected_class = {"block": "cpu-bound", "sleep": "blocked", "starve": "starved"}
        mismatches = []
        for index, ((kind, watchdog, ms), stall) in enumerate(zip(made, recorded)):
            if stall is None:
                continue
            classification = stall["classification"]
            if kind == "block" and classification == "starved":
                classification = "cpu-bound"  # runnable but short of CPU: the machine was loaded
            if stall["watchdog"] != watchdog or classification != expected_class[kind]:
                mismatches.append(f"#{index}: made {kind} on {watchdog}, recorded "
                                  f"{stall['classification']} on {stall['watchdog']}")
        check(len(recorded) == len(made), f"{len(made)} stalls made, {len(recorded)} recorded")
        check(not mismatches, f"{len(mismatches)} stalls recorded differently: {mismatches[:5]}")
        check(counts["failed"] == 0, f"{counts['failed']} /fast requests failed")
        after_first_minute = [kib for at, kib in rss if at >= 60]
        check(after_first_minute, "the soak was shorter than a minute: no RSS to compare")
        growth = max(after_first_minute) - after_first_minute[0]
        check(growth <= RSS_GROWTH_LIMIT_KIB, f"RSS grew by {growth} KiB after the first minute")
        kinds = {kind: sum(1 for made_kind, _, _ in made if made_kind == kind) for kind in expected_class}
        recorded_text = "made and recorded once each" if probe else "made (not recorded: no Probe)"
        print(f"soak passed{'' if probe else ' (without Probe)'}: {minutes:g} min, {len(made)} stalls {recorded_text} ({kinds}), "
              f"/fast ok {counts['ok']} failed 0, RSS {after_first_minute[0]} -> {after_first_minute[-1]} KiB "
              f"(max growth {growth} KiB after the first minute), SIGTERM exit 0 in {seconds:.2f} s")
    except Failure as failure:
        stop.set()
        service.kill()
        fail(str(failure))


if __name__ == "__main__":
    main()
