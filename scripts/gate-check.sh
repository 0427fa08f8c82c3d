#!/usr/bin/env bash
# Shows what the regression gate catches and what it wrongly flags, on this machine, now.
#
#  1. False alarms: the CI configuration, run RUNS times on an unchanged tree, against a freshly
#     made baseline (instructions, allocations) and against the same build (time, `perfkit ci`).
#  2. Detection: a slowdown of 5%, 10% and 20% injected into one benchmark
#     (Harness/fixed-work/fnv1a-4k hashes that much more per operation), RUNS times each, counted
#     for the time gate and the instruction gate separately.
#  3. A markdown table of the results (for the README).
#
# The slowdown exists only in a build made for this check (-DPERFKIT_GATE_CHECK, its own scratch
# path .build-gatecheck) and is switched on by PERFKIT_INJECT_SLOWDOWN_PERCENT.
#
# Environment: RUNS (default 10), PERCENTS (default "5 10 20"; " " for none), FILTER (benchmark
# regex, default what CI gates), BASELINE (use this baseline instead of making a fresh one), KEEP=1
# keeps the work directory, UNCHANGED=0 skips the unchanged-tree row (to add rows to an earlier check).
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${RUNS:-10}
percents=${PERCENTS:-"5 10 20"}
injected="Harness/fixed-work/fnv1a-4k"
# Default: what CI gates (see `perfkit baseline update --help`).
filter_args=(--filter "${FILTER:-^(?!DispatchBench/gcd/|Probe/ping/|Probe/profile/|Probe/sample/|PixelArt/scale/)}")
# The instruction gate's threshold: counts are deterministic, so 2% is far above their spread.
instruction_threshold=2

./scripts/setup.sh
echo "gate-check: building the gate-check binary (release, -DPERFKIT_GATE_CHECK) in .build-gatecheck" >&2
swift build -c release --product perfkit -Xswiftc -DPERFKIT_GATE_CHECK --scratch-path .build-gatecheck >&2
bin="$PWD/.build-gatecheck/release/perfkit"

work=$(mktemp -d /tmp/perfkit-gate-check-XXXXXX)
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
echo "gate-check: work directory $work" >&2

# One executable per injected slowdown, so `perfkit ci` can run it as "the current build".
wrapper() {
    local percent=$1 path="$work/perfkit-slow-$1"
    printf '#!/bin/sh\nPERFKIT_INJECT_SLOWDOWN_PERCENT=%s exec "%s" "$@"\n' "$percent" "$bin" >"$path"
    chmod +x "$path"
    echo "$path"
}

if [ -n "${BASELINE:-}" ]; then
    echo "gate-check: using the baseline $BASELINE" >&2
    cp "$BASELINE" "$work/baseline.json"
else
    echo "gate-check: making a fresh baseline" >&2
    PERFKIT_INJECT_SLOWDOWN_PERCENT=0 "$bin" baseline update --allow-ci --output "$work/baseline.json" \
        "${filter_args[@]}" >"$work/baseline.log" 2>&1
fi

# Prints "<flagged-injected> <flagged-others> <seconds>" for one run of a gate; the summary's
# regression rows look like "| 🔴 regressed | `id` | …".
flags() {
    local summary=$1
    local hit=0 others=0
    if [ -f "$summary" ]; then
        hit=$(grep -c "^| 🔴 regressed | \`$injected\`" "$summary" || true)
        others=$(grep "^| 🔴 regressed |" "$summary" | grep -vc "\`$injected\`" || true)
    fi
    echo "$((hit > 0 ? 1 : 0)) $others"
}

time_gate() { # percent run
    local current summary status start
    current=$(wrapper "$1")
    summary="$work/time-$1-$2.md"
    start=$(date +%s%N)
    set +e
    "$bin" ci --baseline-binary "$(wrapper 0)" --current-binary "$current" "${filter_args[@]}" \
        --summary "$summary" --output "$work/reports" >"$work/time-$1-$2.log" 2>&1
    status=$?
    set -e
    if [ $status -ne 0 ] && [ $status -ne 2 ]; then
        echo "gate-check: perfkit ci failed (exit $status), see $work/time-$1-$2.log" >&2
        tail -5 "$work/time-$1-$2.log" >&2
        exit 1
    fi
    echo "$(flags "$summary") $((($(date +%s%N) - start) / 1000000000))"
}

instruction_gate() { # percent run
    local summary status start
    summary="$work/instructions-$1-$2.md"
    start=$(date +%s%N)
    set +e
    PERFKIT_INJECT_SLOWDOWN_PERCENT=$1 "$bin" run --instructions --allocations --quick "${filter_args[@]}" \
        --baseline "$work/baseline.json" --gate-metric instructions,allocations --threshold $instruction_threshold \
        --summary "$summary" --output "$work/instruction-reports-$1" >"$work/instructions-$1-$2.log" 2>&1
    status=$?
    set -e
    if [ $status -ne 0 ] && [ $status -ne 2 ]; then
        echo "gate-check: perfkit run --instructions failed (exit $status), see $work/instructions-$1-$2.log" >&2
        tail -5 "$work/instructions-$1-$2.log" >&2
        exit 1
    fi
    echo "$(flags "$summary") $((($(date +%s%N) - start) / 1000000000))"
}

rows="$percents"
[ "${UNCHANGED:-1}" = 0 ] || rows="0 $percents"
declare -A time_hits time_others inst_hits inst_others
time_seconds=() inst_seconds=()
for percent in $rows; do
    time_hits[$percent]=0 time_others[$percent]=0 inst_hits[$percent]=0 inst_others[$percent]=0
    for run in $(seq 1 "$runs"); do
        read -r hit others seconds < <(time_gate "$percent" "$run") || true
        [ -n "${seconds:-}" ] || exit 1
        time_hits[$percent]=$((time_hits[$percent] + hit))
        time_others[$percent]=$((time_others[$percent] + (others > 0 ? 1 : 0)))
        time_seconds+=("$seconds")
        read -r ihit iothers iseconds < <(instruction_gate "$percent" "$run") || true
        [ -n "${iseconds:-}" ] || exit 1
        inst_hits[$percent]=$((inst_hits[$percent] + ihit))
        inst_others[$percent]=$((inst_others[$percent] + (iothers > 0 ? 1 : 0)))
        inst_seconds+=("$iseconds")
        echo "gate-check: +$percent% run $run/$runs: time gate flagged injected=$hit others=$others" \
            "($seconds s); instruction gate injected=$ihit others=$iothers ($iseconds s)" >&2
    done
done

# How far instruction counts move between runs of an unchanged tree (the baseline and every
# unchanged instruction run): the largest relative spread of any benchmark.
spread="n/a (no unchanged-tree row in this check)"
if compgen -G "$work/instruction-reports-0/*/report.json" >/dev/null; then
    spread=$(python3 scripts/instruction-spread.py "$work/baseline.json" "$work"/instruction-reports-0/*/report.json) ||
        spread="n/a"
fi

mean() { printf '%s\n' "$@" | awk '{ s += $1; if ($1 > m) m = $1 } END { printf "mean %.0f s, max %.0f s", s / NR, m }'; }
benchmarks=$("$bin" list "${filter_args[@]}" | grep -c / || true)
cpu=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
cat <<EOF

### Regression gate check ($(date -u +%Y-%m-%d), $(hostname), $cpu, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))

Injected: extra hashing in \`$injected\`; $runs runs per row; $benchmarks benchmarks in each run (filter \`${filter_args[1]}\`).
Time gate: \`perfkit ci\` (CPU time, interleaved rounds, re-run of suspects, threshold 5%, Holm).
Instruction gate: \`perfkit run --instructions --allocations --baseline <fresh> --gate-metric instructions,allocations --threshold $instruction_threshold\`.

| Injected slowdown | Time gate: injected benchmark flagged | Time gate: runs flagging another benchmark | Instruction gate: injected benchmark flagged | Instruction gate: runs flagging another benchmark |
|---|---:|---:|---:|---:|
EOF
for percent in $rows; do
    if [ "$percent" = 0 ]; then label="none (unchanged tree)"; else label="+$percent%"; fi
    echo "| $label | ${time_hits[$percent]}/$runs | ${time_others[$percent]}/$runs | ${inst_hits[$percent]}/$runs | ${inst_others[$percent]}/$runs |"
done
cat <<EOF

Duration per run: time gate $(mean "${time_seconds[@]}"), instruction gate $(mean "${inst_seconds[@]}").
Largest spread of instructions/op of one benchmark across the unchanged runs and the baseline: $spread.
EOF
