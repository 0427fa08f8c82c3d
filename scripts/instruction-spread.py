#!/usr/bin/env python3
"""Prints the largest relative spread of instructions per operation of any one benchmark across the
given perfkit reports (e.g. a baseline and several unchanged runs), and which benchmark it was."""
import json
import sys

values = {}
for path in sys.argv[1:]:
    with open(path) as f:
        report = json.load(f)
    for b in report["benchmarks"]:
        if b.get("instructionsPerOperation") is not None:
            values.setdefault(b["id"], []).append(b["instructionsPerOperation"])
spreads = [((max(v) - min(v)) / min(v) * 100 if min(v) > 0 else 0.0, k) for k, v in values.items() if len(v) > 1]
if not spreads:
    sys.exit("instruction-spread: fewer than two runs with instruction counts")
worst, benchmark = max(spreads)
print(f"{worst:.4f}% ({benchmark}, {len(sys.argv) - 1} runs)")
