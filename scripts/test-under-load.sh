#!/usr/bin/env bash
# Is the test suite reliable on a busy machine? Runs `make test` RUNS times in a row (default 10)
# with a CPU-bound neighbour pinned to each core (a shell busy loop per CPU, started here and
# stopped on exit), and reports how many runs passed and which tests failed in the others.
# Usage: scripts/test-under-load.sh [RUNS=10] [LOGDIR]   (its last result: docs/probe-in-a-server.md, "A bad day")
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-10}"
logs="${2:-$(mktemp -d -t test-under-load-XXXXXX)}"
mkdir -p "$logs"
case "$runs" in '' | *[!0-9]*) echo "test-under-load: RUNS must be a whole number (got '$runs')" >&2; exit 2 ;; esac

make -s test > "$logs/warm-up.log" 2>&1 || echo "test-under-load: the warm-up run (no neighbours) failed: $logs/warm-up.log" >&2

spinners=()
stop_spinners() { for pid in "${spinners[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap stop_spinners EXIT
for cpu in $(seq 0 $(($(nproc) - 1))); do
    taskset -c "$cpu" bash -c 'while :; do :; done' &
    spinners+=("$!")
done
echo "test-under-load: ${#spinners[@]} spinners (one per CPU), $runs runs of make test, logs in $logs" >&2

passed=0
for i in $(seq 1 "$runs"); do
    started=$(date +%s)
    if make -s test > "$logs/run$i.log" 2>&1; then
        passed=$((passed + 1)); verdict=passed
    else
        verdict="FAILED: $(grep -E '^✘ Test [^r]' "$logs/run$i.log" | sed -E 's/^✘ Test ([^ (]+).*/\1/' | sort -u | tr '\n' ' ')"
    fi
    echo "run $i: $verdict ($(($(date +%s) - started)) s, load $(cut -d' ' -f1-3 /proc/loadavg))"
done
echo "test-under-load: $passed of $runs runs passed with a busy neighbour on each of $(nproc) CPUs ($(date -u +%FT%TZ), $(git rev-parse --short HEAD))"
[ "$passed" -eq "$runs" ]
