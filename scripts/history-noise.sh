#!/usr/bin/env bash
# How often `perfkit history changes` finds a change in pure noise (#39): the same perfkit build
# measured RUNS times in wall and CPU time, each run filed at a commit of its own in a throwaway
# repository whose commits change nothing (git commit --allow-empty), then every series searched.
# Each change point it reports is a false alarm. Every run is of one executable (one build ID), so a
# level shift the search finds is reported as a shift of the machine, not as a change point: the
# summary counts both (the second is what the search itself finds in noise).
#
#   scripts/history-noise.sh [RUNS] [FILTER] [PROFILE-FLAG]   (defaults: 20, every benchmark, --quick)
#
# Uses .build/release/perfkit (`make release` first). About 40 s per run of every benchmark with --quick
# on 2 cores. Prints the change points and a summary line; the store is kept in the work folder
# (HISTORY_NOISE_WORK names it) for `perfkit history list|changes --store`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-20}
filter=${2:-.}
profile=${3:---quick}
perfkit=$root/.build/release/perfkit
[ -x "$perfkit" ] || { echo "history-noise: $perfkit is missing (make release)" >&2; exit 1; }
work=${HISTORY_NOISE_WORK:-$(mktemp -d /tmp/perfkit-history-noise.XXXXXX)}
repo=$work/repo
rm -rf "$repo" "$work/history.sqlite" "$work/reports"
mkdir -p "$repo"
cd "$repo"
git init -q -b main
start=$(date +%s)
for n in $(seq 1 "$runs"); do
    git -c user.name=noise -c user.email=noise@example.invalid commit -q --allow-empty -m "run $n: nothing changed"
    # In the repository: the report records its commit (`git rev-parse HEAD` in the current directory).
    "$perfkit" run $profile --filter "$filter" --output "$work/reports" --history "$work/history.sqlite" \
        --machine noise >/dev/null 2>"$work/run.log" || { cat "$work/run.log" >&2; exit 1; }
    echo "history-noise: run $n/$runs done ($(( $(date +%s) - start )) s)" >&2
done
"$perfkit" history changes --store "$work/history.sqlite" --metric wall cpu | tee "$work/changes.txt"
found=$(grep -c '^regression \|^improvement' "$work/changes.txt" || true)
shifts=$(grep -c '^machine ' "$work/changes.txt" || true)
series=$(sed -n 's/.* runs, \([0-9]*\) series searched.*/\1/p' "$work/changes.txt")
echo "history-noise: $found change point(s) and $shifts shift(s) of the machine in $series series of $runs runs each ($profile, filter '$filter'); took $(( $(date +%s) - start )) s; store $work/history.sqlite"
