#!/usr/bin/env bash
# Checks that `perfkit startup` measures the same whole-process time as hyperfine.
#   scripts/startup-vs-hyperfine.sh [--runs N] [--tolerance PERCENT] -- COMMAND ARGS...
# Compares perfkit's median time to exit with hyperfine's median (-N: no shell in between) and
# fails when they differ by more than the tolerance (default 5%).
set -euo pipefail

runs=30
tolerance=5
perfkit=${PERFKIT:-.build/debug/perfkit}
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs=$2; shift 2 ;;
        --tolerance) tolerance=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "usage: $0 [--runs N] [--tolerance PERCENT] -- COMMAND ARGS..." >&2; exit 1 ;;
    esac
done
[ $# -gt 0 ] || { echo "$0: no command given" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "$0: hyperfine is not installed (scripts/setup.sh installs it)" >&2; exit 1; }
[ -x "$perfkit" ] || { echo "$0: $perfkit: not built (swift build --product perfkit, or set PERFKIT)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$perfkit" startup --runs "$runs" --output "$work/reports" -- "$@" >/dev/null
report=$(find "$work/reports" -name report.json | head -1)
hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/hyperfine.json" -- "$(printf '%q ' "$@")" >/dev/null

python3 - "$report" "$work/hyperfine.json" "$tolerance" <<'PY'
import json, sys
report, hyper, tolerance = sys.argv[1], sys.argv[2], float(sys.argv[3])
startup = json.load(open(report))["startup"][0]
exit_phase = next(p for p in startup["phases"] if p["name"] == "exit")
perfkit_ms = exit_phase["statistics"]["median"] / 1e6
hyperfine_ms = json.load(open(hyper))["results"][0]["median"] * 1e3
difference = abs(perfkit_ms - hyperfine_ms) / hyperfine_ms * 100
print(f"perfkit startup median to exit: {perfkit_ms:.2f} ms; hyperfine median: {hyperfine_ms:.2f} ms; "
      f"difference {difference:.1f}% (tolerance {tolerance:.0f}%)")
sys.exit(0 if difference <= tolerance else 2)
PY
