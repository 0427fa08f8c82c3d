#!/usr/bin/env python3
"""What a running whole-process profile costs a server: requests per second of /fast under wrk
while a cpu profile at RATE Hz is being taken from --profile-port, against the same process with
none, ABBA within each round, a fresh service each round (pinned to CPU 0, wrk to CPU 1 as in
overhead.py). The loss is 1 - the mean ratio, with a 95% bootstrap interval over rounds.

Usage: profile_cost.py [ROUNDS] [SECONDS] [RATE]   (defaults 10 rounds of 5 s each way, 100 Hz; wrk)"""

import sys
import tempfile
import threading
import urllib.request

from overhead import PINNED, loss_line, requests_per_second
from service import Service, check, free_port


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    rate = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    connections = 32
    ratios = []
    for index in range(rounds):
        port = free_port()
        service = Service(tempfile.mkdtemp(prefix="profile-cost-"), profile_port=port, cpus="0" if PINNED else None)
        try:
            requests_per_second(service.port, 1, connections)  # warm-up

            def profiled():
                answered = {}

                def fetch():
                    url = f"http://127.0.0.1:{port}/debug/pprof/profile?seconds={seconds + 1}&rate={rate}"
                    with urllib.request.urlopen(url, timeout=seconds + 30) as response:
                        answered["status"] = response.status
                        response.read()

                fetcher = threading.Thread(target=fetch)
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
