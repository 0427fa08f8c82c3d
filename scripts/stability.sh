#!/usr/bin/env bash
# Shows how stable perfkit's numbers are on this machine: runs the selected benchmarks in N separate
# `perfkit run` processes and reports, per benchmark, the spread (CV) of the N medians; checks that
# dispatch-style micro-benchmarks stay within 2% and that an empty body costs under 1 ns/op.
# Usage: scripts/stability.sh [RUNS=5] [FILTER='DispatchBench/dispatch|Harness/baseline'] [perfkit run options…]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
filter=${2:-'DispatchBench/dispatch|Harness/baseline'}
shift $(($# < 2 ? $# : 2))
make -s release >/dev/null
out=$(mktemp -d)
for i in $(seq 1 "$runs"); do
    echo "stability: run $i of $runs" >&2
    .build/release/perfkit run --filter "$filter" --output "$out/run$i" "$@" >/dev/null
done
python3 - "$out" "$runs" <<'PY'
import glob, json, statistics, sys
out, runs = sys.argv[1], int(sys.argv[2])
medians = {}
for path in sorted(glob.glob(f"{out}/run*/*/report.json")):
    report = json.load(open(path))
    for b in report["benchmarks"]:
        medians.setdefault(b["id"], []).append(b["wallTime"]["median"])
env = report["environment"]
print(f"{runs} separate runs on {env['host']} ({env['cpuModel']}, {env['coreCount']} cores), "
      f"{env['swiftVersion']}, {report['createdAt'][:10]}")
print(f"{'benchmark':60} {'median of medians':>18} {'CV across runs':>15}  verdict")
failures = 0
for bid, values in sorted(medians.items()):
    m = statistics.median(values)
    cv = statistics.stdev(values) / statistics.mean(values) if len(values) > 1 and statistics.mean(values) > 0 else 0.0
    if bid == "Harness/baseline/empty-body":
        ok = m < 1.0
        verdict = "ok (< 1 ns/op)" if ok else "FAIL (≥ 1 ns/op)"
    else:
        ok = cv <= 0.02
        verdict = "ok (≤ 2%)" if ok else "FAIL (> 2%)"
    failures += 0 if ok else 1
    print(f"{bid:60} {m:15.3f} ns {cv*100:14.2f}%  {verdict}")
print(f"{failures} of {len(medians)} benchmarks outside the target")
PY
