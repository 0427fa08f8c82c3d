#!/usr/bin/env bash
# Shows whether DispatchBench's claim verdicts repeat: runs the selected benchmarks in N consecutive
# `perfkit run` processes and lists, for each pair of consecutive runs, every claim whose verdict
# differs (with both runs' evidence), then the cases that flipped anywhere.
# Usage: scripts/verdict-stability.sh [RUNS=2] [FILTER='DispatchBench'] [perfkit run options…]
# KEEP=DIR keeps the reports in DIR instead of a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-2}
filter=${2:-'DispatchBench'}
shift $(($# < 2 ? $# : 2))
make -s release >/dev/null
out=${KEEP:-$(mktemp -d)}
mkdir -p "$out"
for i in $(seq 1 "$runs"); do
    echo "verdict-stability: run $i of $runs" >&2
    .build/release/perfkit run --filter "$filter" --output "$out/run$i" --format json "$@" >/dev/null
done
python3 - "$out" "$runs" <<'PY'
import glob, json, sys
out, runs = sys.argv[1], int(sys.argv[2])
reports = [json.load(open(glob.glob(f"{out}/run{i}/*/report.json")[0])) for i in range(1, runs + 1)]
claims = [{b["id"]: b["claim"] for b in r["benchmarks"] if b.get("claim")} for r in reports]
env = reports[0]["environment"]
print(f"{runs} consecutive runs on {env['host']} ({env['cpuModel']}, {env['coreCount']} cores), "
      f"{env['swiftVersion']}, {reports[0]['createdAt'][:10]}; "
      f"load averages {', '.join(str(round(r['environment']['loadAverage'][0], 1)) for r in reports)}")
flipped = set()
for i in range(1, runs):
    before, after = claims[i - 1], claims[i]
    changed = [k for k in before if k in after and before[k]["verdict"] != after[k]["verdict"]]
    flipped.update(changed)
    print(f"\nrun {i} -> run {i + 1}: {len(changed)} of {len(before)} verdicts differ")
    for k in changed:
        print(f"  {k}: {before[k]['verdict']} -> {after[k]['verdict']}")
        print(f"      run {i}: {before[k]['evidence'][:220]}")
        print(f"      run {i + 1}: {after[k]['evidence'][:220]}")
print(f"\n{len(flipped)} of {len(claims[0])} claims changed verdict between consecutive runs")
sys.exit(1 if flipped else 0)
PY
