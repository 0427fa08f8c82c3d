#!/usr/bin/env python3
"""Prints the largest relative spread of instructions per operation of any one benchmark across the
given perfkit reports (a baseline first, then other runs of the same binary), and which benchmark it
was. Benchmarks the baseline marks as not deterministic (rule instructions-not-deterministic, not
gated) are left out and counted."""
import json
import sys

values = {}
excluded = set()
for index, path in enumerate(sys.argv[1:]):
    with open(path) as f:
        report = json.load(f)
    for b in report["benchmarks"]:
        if index == 0 and any(w["rule"] == "instructions-not-deterministic" for w in b.get("warnings", [])):
            excluded.add(b["id"])
        if b.get("instructionsPerOperation") is not None and b["id"] not in excluded:
            values.setdefault(b["id"], []).append(b["instructionsPerOperation"])
spreads = [((max(v) - min(v)) / min(v) * 100 if min(v) > 0 else 0.0, k) for k, v in values.items() if len(v) > 1]
if not spreads:
    sys.exit("instruction-spread: fewer than two runs with instruction counts")
worst, benchmark = max(spreads)
identical = sum(1 for spread, _ in spreads if spread == 0)
print(
    f"{worst:.4f}% ({benchmark}; {identical} of {len(spreads)} gated benchmarks identical in all "
    f"{len(sys.argv) - 1} runs; {len(excluded)} marked not deterministic and not gated)"
)
