#!/usr/bin/env python3
"""What a running whole-process profile costs a server: requests per second of /fast under wrk
while a cpu profile at RATE Hz is being taken from --profile-port, against the same process with
none, ABBA within each round, a fresh service each round (pinned to CPU 0, wrk to CPU 1 as in
overhead.py). The loss is 1 - the mean ratio, with a 95% bootstrap interval over rounds.

--together: two services share CPU 0 and are loaded at the same time (a wrk each on CPU 1), so a
slower or faster host falls on both in the same seconds and the scheduler gives each half the core:
what a profile costs its process shows as that process's share of the requests. Each round measures
the pair twice, neither profiled (the pair's own ratio, A/B) and one profiled; the round's ratio is
the second over the first, which cancels what differs between the two processes; which one is
profiled and the order alternate by round. The neither-profiled ratios' spread is printed as the
design's resolution on this host.

Usage: profile_cost.py [ROUNDS] [SECONDS] [RATE] [--together]
       (defaults 10 rounds of 5 s each way, 100 Hz; wrk)"""

import statistics
import sys
import tempfile
import threading
import urllib.request

from overhead import PINNED, bootstrap_interval, loss_line, requests_per_second
from service import Service, check, free_port


def fetch_profile(port, seconds, rate, answered):
    url = f"http://127.0.0.1:{port}/debug/pprof/profile?seconds={seconds + 1}&rate={rate}"
    with urllib.request.urlopen(url, timeout=seconds + 30) as response:
        answered["status"] = response.status
        response.read()


def loaded_together(services, seconds, connections, profiled=None, rate=100):
    """Requests per second of each service, all loaded in the same seconds; `profiled` (an index)
    has a cpu profile running meanwhile."""
    measured, answered = [None] * len(services), {}
    fetcher = None
    if profiled is not None:
        fetcher = threading.Thread(target=fetch_profile,
                                   args=(services[profiled].profile_port, seconds, rate, answered))
        fetcher.start()

    def load(index):
        measured[index] = requests_per_second(services[index].port, seconds, connections)

    loaders = [threading.Thread(target=load, args=(index,)) for index in range(len(services))]
    for loader in loaders:
        loader.start()
    for loader in loaders:
        loader.join()
    if fetcher:
        fetcher.join()
        check(answered.get("status") == 200, f"the profile answered {answered.get('status')}")
    check(all(value for value in measured), "a service was not measured")
    return measured


def together(rounds, seconds, rate, connections):
    ratios, pair_ratios = [], []
    for index in range(rounds):
        services = []
        try:
            for _ in range(2):
                services.append(Service(tempfile.mkdtemp(prefix="profile-cost-"), profile_port=free_port(),
                                        cpus="0" if PINNED else None))
            loaded_together(services, 1, connections)  # warm-up
            profiled = index % 2  # which of the pair; the order of the two stretches turns every two rounds
            stretches = ["pair", "profiled"] if index // 2 % 2 == 0 else ["profiled", "pair"]
            measured = {name: loaded_together(services, seconds, connections,
                                              profiled if name == "profiled" else None, rate)
                        for name in stretches}
        finally:
            for service in services:
                service.kill()
        other = 1 - profiled
        pair = measured["pair"][profiled] / measured["pair"][other]
        with_profile = measured["profiled"][profiled] / measured["profiled"][other]
        pair_ratios.append(pair)
        ratios.append(with_profile / pair)
        print(f"round {index + 1:2}: neither profiled {measured['pair'][profiled]:7.0f} / {measured['pair'][other]:7.0f} "
              f"req/s, one profiled {measured['profiled'][profiled]:7.0f} / {measured['profiled'][other]:7.0f} req/s, "
              f"ratio {ratios[-1]:.4f}", flush=True)
    low, high = bootstrap_interval(pair_ratios)
    print(f"\n/fast, two services on one core loaded together (wrk -t1 -c{connections} each), {rounds} rounds of "
          f"{seconds} s each way, a cpu profile at {rate} Hz on one of them:")
    print(f"  the pair's own ratio, neither profiled: {min(pair_ratios):.4f}-{max(pair_ratios):.4f} "
          f"(mean {statistics.fmean(pair_ratios):.4f} [{low:.4f}, {high:.4f}])")
    print(loss_line("profiling/none", ratios))


def main():
    arguments = [argument for argument in sys.argv[1:] if argument != "--together"]
    rounds = int(arguments[0]) if len(arguments) > 0 else 10
    seconds = int(arguments[1]) if len(arguments) > 1 else 5
    rate = int(arguments[2]) if len(arguments) > 2 else 100
    connections = 32
    if "--together" in sys.argv[1:]:
        return together(rounds, seconds, rate, connections)
    ratios = []
    for index in range(rounds):
        port = free_port()
        service = Service(tempfile.mkdtemp(prefix="profile-cost-"), profile_port=port, cpus="0" if PINNED else None)
        try:
            requests_per_second(service.port, 1, connections)  # warm-up

            def profiled():
                answered = {}
                fetcher = threading.Thread(target=fetch_profile, args=(port, seconds, rate, answered))
                fetcher.start()
                measured = requests_per_second(service.port, seconds, connections)
                fetcher.join()
                check(answered.get("status") == 200, f"the profile answered {answered.get('status')}")
                return measured

            order = ["off", "on"] if index % 2 == 0 else ["on", "off"]
            measured = {name: profiled() if name == "on" else requests_per_second(service.port, seconds, connections)
                        for name in order}
        finally:
            service.kill()
        ratios.append(measured["on"] / measured["off"])
        print(f"round {index + 1:2}: no profile {measured['off']:9.0f} req/s, profiling {measured['on']:9.0f} req/s, "
              f"ratio {ratios[-1]:.4f}", flush=True)
    print(f"\n/fast, wrk -t1 -c{connections}, {rounds} rounds of {seconds} s each way, a cpu profile at {rate} Hz:")
    print(loss_line("profiling/none", ratios))


if __name__ == "__main__":
    main()
