#!/usr/bin/env python3
"""How often perfkit's gates catch a regression, and how often they cry wolf, on this package.

Builds the package three times (unchanged, HEAP_REGRESSION_5, HEAP_REGRESSION_10: the heap work
processes 5% or 10% more elements; with --injected sort, SORT_REGRESSION_5/_10 in the sort, a benchmark
whose processes lie further apart; with --injected lookup, LOOKUP_REGRESSION_5/_10 in the route lookups,
whose processes lie far apart by construction), measures a wall-time baseline of the unchanged build on a quiet
machine, then runs K trials in each condition -- quiet, one core busy, both cores busy (CPU-bound
neighbour processes this script starts and stops), and a moving host (one CPU-bound neighbour that
starts and stops every 4 s for the whole condition, its own baselines included: they are measured
under it, not on the quiet machine) -- of each build against that baseline, the builds interleaved
(base, +5%, +10%, then rotated). Four gates: the wall-time gate (`run --processes M --baseline`,
against a baseline of N processes; what its first look leaves undecided it measures in more processes
for up to --decide-within seconds), the same beside the unchanged build (`wall-beside`: with
`--baseline-binary`, its later looks alternate both builds), the count gate (instructions and allocations under callgrind,
2%) and `ci` (each build against the unchanged one, interleaved in alternating processes, CPU
time). --conditions and --gates choose some, so that the trials can be run in parts. Prints a
markdown table and writes every trial's outcome as JSON.

usage: scripts/trials.py [--trials K] [--conditions quiet,one-busy,both-busy,moving] [--injected heap|sort|lookup]
                         [--gates wall-time,wall-beside,count,ci] [--baseline-processes N]
                         [--candidate-processes M] [--decide-within SECONDS] [--spread-processes N] [--json FILE]
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRODUCT = "CollectionsBenchmarks"
# Where the change goes: the benchmark, and its builds' flags and scratch folders (the heap's first).
INJECTIONS = {
    "heap": ("Collections/heap/drain", "HEAP_REGRESSION", ""),
    "sort": ("Collections/sort/ints", "SORT_REGRESSION", "-sort"),
    "lookup": ("Collections/set/route-lookups", "LOOKUP_REGRESSION", "-lookup"),
}
INJECTED, BUILDS, SCRATCH = None, {}, {}


def choose_injection(name):
    global INJECTED, BUILDS, SCRATCH
    INJECTED, flag, suffix = INJECTIONS[name]
    BUILDS = {"base": [], "+5%": ["-Xswiftc", f"-D{flag}_5"], "+10%": ["-Xswiftc", f"-D{flag}_10"]}
    SCRATCH = {"base": ".build", "+5%": f".build{suffix}-plus5", "+10%": f".build{suffix}-plus10"}


NEIGHBOURS = {"quiet": 0, "one-busy": 1, "both-busy": 2}
# The moving host: one neighbour, on for this long, then off for as long, over and over.
MOVING = "moving"
MOVING_PERIOD_SECONDS = 4.0
CONDITIONS = list(NEIGHBOURS) + [MOVING]
GATES = ["wall", "wall-beside", "count", "ci"]
GATE_NAMES = {"wall-time": "wall"}


def build(variant):
    scratch = os.path.join(HERE, SCRATCH[variant])
    print(f"trials: building {variant} in {SCRATCH[variant]}", file=sys.stderr, flush=True)
    subprocess.run(["swift", "build", "-c", "release", "--product", PRODUCT, "--package-path", HERE,
                    "--scratch-path", scratch] + BUILDS[variant], check=True, stdout=subprocess.DEVNULL)
    return os.path.join(scratch, "release", PRODUCT)


def only_report(directory):
    reports = glob.glob(os.path.join(directory, "*", "report.json"))
    if len(reports) != 1:
        sys.exit(f"trials: {directory}: expected one report, found {len(reports)}")
    with open(reports[0]) as f:
        return json.load(f)


def start_neighbours(count):
    # CPU-bound and nothing else: no memory traffic, no system calls.
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def stop(neighbours):
    for process in neighbours:
        process.kill()
        process.wait()


class MovingNeighbour:
    """One CPU-bound neighbour that starts, runs `period` seconds, stops, waits as long, and again,
    until stop(): a shared host whose neighbours come and go within a process's run."""

    def __init__(self, period):
        self.period = period
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._toggle, daemon=True)
        self.thread.start()

    def _toggle(self):
        running = []
        try:
            while not self.done.is_set():
                running = start_neighbours(1)
                self.done.wait(self.period)
                stop(running)
                running = []
                self.done.wait(self.period)
        finally:
            stop(running)

    def stop(self):
        self.done.set()
        self.thread.join()


def start_condition(condition):
    """Starts `condition`'s neighbours; returns what stops them."""
    if condition == MOVING:
        return MovingNeighbour(MOVING_PERIOD_SECONDS).stop
    neighbours = start_neighbours(NEIGHBOURS[condition])
    return lambda: stop(neighbours)


def measure_baselines(gates, executables, work, baseline_processes, host, spread=()):
    """The wall-time and count baselines the gates in `gates` need, measured on `host` ("quiet", or
    "moving" while its neighbour comes and goes); returns them and the wall baseline's process spread."""
    baselines = {}
    floor = None
    if "wall" in gates or "wall-beside" in gates:
        print(f"trials: wall-time baseline, {baseline_processes} processes, {host}", file=sys.stderr)
        directory = os.path.join(work, f"wall-baseline-{host}")
        subprocess.run([executables["base"], "run", "--processes", str(baseline_processes),
                        "--output", directory, "--format", "json", *spread], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        baselines["wall"] = glob.glob(os.path.join(directory, "*", "report.json"))[0]
        with open(baselines["wall"]) as f:
            spreads = {b["id"]: b["processSpread"] for b in json.load(f)["benchmarks"]}
        floor = {i: s["spreadPercent"] for i, s in spreads.items()}
        # A far-spread benchmark's extra processes hash with one fixed seed: their spread beside.
        print(f"trials: the {host} baseline's processes lie apart by " + ", ".join(
            f"{i} {s['spreadPercent']:.1f}%" + (f" (one fixed hash seed: {s['fixedHashSeedSpreadPercent']:.1f}% "
                                                 f"in {s['fixedHashSeedProcesses']})"
                                                 if "fixedHashSeedSpreadPercent" in s else "")
            for i, s in spreads.items()), file=sys.stderr)
    if "count" in gates:
        print(f"trials: count baseline (callgrind), {host}", file=sys.stderr)
        directory = os.path.join(work, f"count-baseline-{host}")
        subprocess.run([executables["base"], "run", "--quick", "--instructions", "--allocations",
                        "--output", directory, "--format", "json"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        baselines["count"] = glob.glob(os.path.join(directory, "*", "report.json"))[0]
    return baselines, floor


def trial(executable, arguments, work):
    output = tempfile.mkdtemp(dir=work)
    if arguments[0] == "ci":
        arguments = arguments + ["--summary", os.path.join(output, "summary.md")]
    start = time.monotonic()
    status = subprocess.run([executable] + arguments + ["--output", output],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    seconds = time.monotonic() - start
    if status not in (0, 2, 3):
        sys.exit(f"trials: {executable} {' '.join(arguments)}: exit {status}")
    report = only_report(output)
    # The count gate has an entry per metric for each benchmark: a benchmark's verdict is its worst.
    rank = {"regressed": 0, "inconclusive": 1, "within-noise": 2, "improved": 3, "no-change": 4}
    verdicts = {}
    explanations = {}
    for entry in (report.get("comparison") or {}).get("entries", []):
        old = verdicts.get(entry["id"])
        if old is None or rank.get(entry["verdict"], 5) < rank.get(old, 5):
            verdicts[entry["id"]] = entry["verdict"]
            explanations[entry["id"]] = entry["explanation"]
    shutil.rmtree(output)
    return {"status": status, "seconds": round(seconds, 2), "verdicts": verdicts, "explanations": explanations}


def classify(variant, outcome):
    """What the trial says about the injected benchmark and about the others."""
    injected = outcome["verdicts"].get(INJECTED)
    innocent = sorted(i for i, v in outcome["verdicts"].items() if v == "regressed" and i != INJECTED)
    return injected, innocent


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--conditions", default=",".join(CONDITIONS),
                        help=f"some of {', '.join(CONDITIONS)}, comma-separated")
    parser.add_argument("--gates", default="wall-time,count,ci",
                        help="some of wall-time (or wall), wall-beside, count, ci, comma-separated")
    parser.add_argument("--baseline-processes", type=int, default=10)
    parser.add_argument("--candidate-processes", type=int, default=3)
    parser.add_argument("--decide-within", help="the wall-time gates' --decide-within (default: perfkit's)")
    parser.add_argument("--spread-processes", help="the wall-time baseline's --spread-processes (default: perfkit's)")
    parser.add_argument("--injected", default="heap", choices=sorted(INJECTIONS),
                        help="the benchmark the +5%% and +10%% builds change (default heap)")
    parser.add_argument("--json", help="write every trial's outcome here")
    args = parser.parse_args()
    choose_injection(args.injected)
    conditions = args.conditions.split(",")
    gates = [GATE_NAMES.get(gate, gate) for gate in args.gates.split(",")]
    for condition in conditions:
        if condition not in CONDITIONS:
            sys.exit(f"trials: unknown condition {condition} (use {', '.join(CONDITIONS)})")
    for gate in gates:
        if gate not in GATES:
            sys.exit(f"trials: unknown gate {gate} (use wall-time, wall-beside, count, ci)")

    executables = {variant: build(variant) for variant in BUILDS}
    work = tempfile.mkdtemp(prefix="collections-trials-")
    try:
        # The quiet baselines serve every condition but the moving host, which measures its own.
        baselines = {}
        floors = {}
        spread = ["--spread-processes", args.spread_processes] if args.spread_processes is not None else []
        if any(condition != MOVING for condition in conditions):
            baselines["quiet"], floors["quiet"] = measure_baselines(
                gates, executables, work, args.baseline_processes, "quiet", spread)

        decide = ["--decide-within", args.decide_within] if args.decide_within is not None else []
        gate_arguments = {
            "wall": lambda host: ["run", "--processes", str(args.candidate_processes),
                                  "--baseline", baselines[host]["wall"]] + decide,
            "wall-beside": lambda host: ["run", "--processes", str(args.candidate_processes),
                                         "--baseline", baselines[host]["wall"],
                                         "--baseline-binary", executables["base"]] + decide,
            "count": lambda host: ["run", "--quick", "--instructions", "--allocations",
                                   "--baseline", baselines[host]["count"],
                                   "--gate-metric", "instructions,allocations", "--threshold", "2"],
            # Both builds interleaved in alternating processes (CPU time), as `ci --against` runs them.
            "ci": lambda host: ["ci", "--baseline-binary", executables["base"]],
        }
        results = []
        variants = list(BUILDS)
        for condition in conditions:
            stop_neighbours = start_condition(condition)
            try:
                time.sleep(0.5)
                host = MOVING if condition == MOVING else "quiet"
                if host == MOVING:
                    # Baseline included: the neighbour comes and goes while it is measured too.
                    baselines[MOVING], floors[MOVING] = measure_baselines(
                        gates, executables, work, args.baseline_processes, MOVING, spread)
                for number in range(args.trials):
                    order = variants[number % 3:] + variants[:number % 3]
                    for gate in gates:
                        for variant in order:
                            outcome = trial(executables[variant], gate_arguments[gate](host), work)
                            injected, innocent = classify(variant, outcome)
                            row = {"condition": condition, "baseline": host, "gate": gate, "variant": variant,
                                   "trial": number,
                                   "status": outcome["status"], "seconds": outcome["seconds"],
                                   "injected": injected, "innocent": innocent,
                                   "load": os.getloadavg()[0]}
                            # Why, for whatever the gate did not answer as the build would have it.
                            expected = "no-change" if variant == "base" else "regressed"
                            if injected not in (expected, "within-noise" if variant == "base" else None):
                                row["why"] = outcome["explanations"].get(INJECTED)
                            if innocent:
                                row["whyInnocent"] = {i: outcome["explanations"].get(i) for i in innocent}
                            # An exit 3 the injected benchmark did not cause: which other one could not be judged.
                            if outcome["status"] == 3 and injected != "inconclusive":
                                row["whyInconclusive"] = {i: outcome["explanations"].get(i)
                                                          for i, v in outcome["verdicts"].items() if v == "inconclusive"}
                            results.append(row)
                            print(f"trials: {condition} {gate} {variant} #{number + 1}: exit {row['status']}, "
                                  f"{INJECTED} {injected}, others regressed {innocent or 'none'}, "
                                  f"{row['seconds']} s", file=sys.stderr, flush=True)
            finally:
                stop_neighbours()
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"date": time.strftime("%Y-%m-%d %H:%M", time.gmtime()), "trials": args.trials,
                           "injected": INJECTED,
                           "baselineProcessSpreadPercent": floors if "wall" in gates or "wall-beside" in gates else None,
                           "baselineProcesses": args.baseline_processes,
                           "candidateProcesses": args.candidate_processes,
                           "spreadProcesses": args.spread_processes, "decideWithin": args.decide_within,
                           "results": results}, f, indent=1)
        print(table(results, conditions, gates, args.trials))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def table(results, conditions, gates, trials):
    lines = ["| condition | gate | false alarms (unchanged) | inconclusive (unchanged) | +5% caught | "
             "+5% inconclusive | +10% caught | +10% inconclusive | +10% \"no change\" | others flagged | s/run (max) |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for condition in conditions:
        for gate in gates:
            rows = [r for r in results if r["condition"] == condition and r["gate"] == gate]
            if not rows:
                continue

            def count(variant, predicate):
                return sum(1 for r in rows if r["variant"] == variant and predicate(r))

            base = [r for r in rows if r["variant"] == "base"]
            lines.append("| " + " | ".join([
                condition, gate,
                f"{count('base', lambda r: r['status'] == 2)}/{len(base)}",
                f"{count('base', lambda r: r['status'] == 3)}/{len(base)}",
                f"{count('+5%', lambda r: r['injected'] == 'regressed')}/{trials}",
                f"{count('+5%', lambda r: r['injected'] == 'inconclusive')}/{trials}",
                f"{count('+10%', lambda r: r['injected'] == 'regressed')}/{trials}",
                f"{count('+10%', lambda r: r['injected'] == 'inconclusive')}/{trials}",
                f"{count('+10%', lambda r: r['injected'] == 'no-change')}/{trials}",
                f"{sum(1 for r in rows if r['innocent'])}/{len(rows)}",
                f"{sum(r['seconds'] for r in rows) / len(rows):.1f} ({max(r['seconds'] for r in rows):.1f})",
            ]) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
