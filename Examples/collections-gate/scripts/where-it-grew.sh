#!/usr/bin/env bash
# Checks that a count regression says where it grew and why (#50), for three regressions compiled
# into this package, each alone against the unchanged build:
#   HEAP_EXTRA_WORK     extra work inside CollectionsWork.drainChecksumStep   (Collections/heap/drain)
#   CHURN_EXISTENTIAL   churnWeight takes [any Weighted] instead of a generic (Collections/deque/churn)
#   SORT_RETAIN_LOG     sortedChecksum holds a class reference across a call in its loop (Collections/sort/ints)
# Each: the gate (`run --instructions --gate-metric instructions --baseline … --baseline-binary …`)
# must exit 2 and list the function first among this package's functions that grew most (for the
# first, first of all and on top of `go tool pprof -top -diff_base`), and its compiled-code lines
# must say why (the size, a witness-table call, swift_retain in a loop). Four release builds and callgrind
# runs: about 15 minutes the first time, a minute or two after.
# Then the first in wall time, by sampled time profiles: the default gate (`run --baseline …
# --baseline-binary …`, against a wall-time baseline measured just before) must exit 2 and list
# drainChecksumStep first by share of the sampled CPU time, and on top of the .time pprof pair. If
# HEAP_EXTRA_WORK's 8 rounds do not move the time (they can run beside the heap's loads: `ci` saw
# −1.5% CPU time), HEAP_EXTRA_TIME's 64 are tried (one more build). A machine busy enough to leave
# the gate inconclusive (exit 3) fails this check: run it when quiet.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="${WORK:-$here/.build-where-it-grew}"
mkdir -p "$work"

build() { # scratch [define]
    swift build -c release --product CollectionsBenchmarks --package-path "$here" --scratch-path "$here/$1" \
        ${2:+-Xswiftc -D$2} >/dev/null || { echo "where-it-grew: the build in $1 failed" >&2; exit 1; }
    echo "$here/$1/release/CollectionsBenchmarks"
}
base_binary=$(build .build)
rm -rf "$work/base"
"$base_binary" run --instructions --filter 'Collections/(heap|deque|sort)/' --output "$work/base" >/dev/null
base_report=$(ls "$work"/base/*/report.json)

failures=0
check() { # name define benchmark function why-pattern
    local name=$1 define=$2 benchmark=$3 function=$4 why=$5
    local binary status=0
    binary=$(build ".build-$name" "$define")
    rm -rf "$work/$name"
    "$binary" run --instructions --filter "$benchmark" --baseline "$base_report" --gate-metric instructions \
        --baseline-binary "$base_binary" --output "$work/$name" --summary "$work/$name.md" >"$work/$name.txt" || status=$?
    if [ "$status" -ne 2 ]; then
        echo "where-it-grew: $define: expected the gate to exit 2 (regressed), got $status" >&2
        cat "$work/$name.txt" >&2
        failures=$((failures + 1))
        return
    fi
    # The first grown function of this package's code (the runtime functions it now calls more,
    # swift_retain or the exclusivity checks' AccessSet, may rank above it), and its code lines.
    local first
    first=$(grep -A20 'grew most' "$work/$name.md" | grep '^- `CollectionsWork\.' | head -1)
    local lines
    lines=$(grep -A20 'grew most' "$work/$name.md" | awk -v first="$first" \
        '$0 == first { inside = 1; next } inside && /^  - compiled code:/ { print; next } { inside = 0 }')
    echo "where-it-grew: $define: first: $first"
    echo "$lines" | sed 's/^/    /'
    case "$first" in *"$function"*) ;; *)
        echo "where-it-grew: $define: $function is not the first Swift function that grew" >&2
        cat "$work/$name.md" >&2
        failures=$((failures + 1))
        return
        ;;
    esac
    if ! echo "$lines" | grep -q -- "$why"; then
        echo "where-it-grew: $define: no compiled-code line says \"$why\"" >&2
        cat "$work/$name.md" >&2
        failures=$((failures + 1))
        return
    fi
    if [ "$name" = extra-work ]; then
        local overall
        overall=$(grep -A20 'grew most' "$work/$name.md" | grep '^- `' | head -1)
        if [ "$overall" != "$first" ]; then
            echo "where-it-grew: $define: $function is not first of all: $overall" >&2
            failures=$((failures + 1))
        fi
    fi
    if [ "$name" = extra-work ] && command -v go >/dev/null; then
        local profiles safe top
        profiles=$(ls -d "$work/$name"/*/profiles)
        safe=$(echo "$benchmark" | sed 's/[^A-Za-z0-9._-]/_/g')
        top=$(GOTOOLCHAIN=local go tool pprof -top -diff_base "$profiles/$safe.base.pb.gz" "$profiles/$safe.new.pb.gz" \
            2>/dev/null | grep -A1 'flat%' | sed -n 2p)
        echo "where-it-grew: pprof's top row: $top"
        case "$top" in *"$function"*) ;; *)
            echo "where-it-grew: $function is not on top of pprof's -diff_base" >&2
            failures=$((failures + 1))
            ;;
        esac
    fi
}

# The wall-time case: both binaries profiled by sampled time once the gate calls it regressed.
check_time() { # benchmark function
    local benchmark=$1 function=$2 binary status=0 define
    rm -rf "$work/time-base"
    "$base_binary" run --quick --filter "$benchmark" --output "$work/time-base" >/dev/null
    for define in HEAP_EXTRA_WORK HEAP_EXTRA_TIME; do
        binary=$(build ".build-$(echo "${define#HEAP_}" | tr 'A-Z_' 'a-z-')" "$define")
        rm -rf "$work/time"
        status=0
        "$binary" run --quick --filter "$benchmark" --baseline "$(ls "$work"/time-base/*/report.json)" \
            --baseline-binary "$base_binary" --output "$work/time" --summary "$work/time.md" >"$work/time.txt" ||
            status=$?
        [ "$status" -eq 0 ] || break
        echo "where-it-grew: wall time: $define did not move $benchmark's time (exit 0); trying the next"
    done
    if [ "$status" -ne 2 ]; then
        echo "where-it-grew: wall time: expected the gate to exit 2 (regressed), got $status" >&2
        cat "$work/time.txt" >&2
        failures=$((failures + 1))
        return
    fi
    local first
    first=$(grep -A8 'share of the sampled CPU time' "$work/time.md" | grep '^- `' | head -1)
    echo "where-it-grew: wall time ($define): first sampled: $first"
    case "$first" in *"$function"*) ;; *)
        echo "where-it-grew: wall time: $function is not first in the sampled list" >&2
        cat "$work/time.md" >&2
        failures=$((failures + 1))
        return
        ;;
    esac
    if command -v go >/dev/null; then
        local profiles safe top
        profiles=$(ls -d "$work/time"/*/profiles)
        safe=$(echo "$benchmark" | sed 's/[^A-Za-z0-9._-]/_/g')
        top=$(GOTOOLCHAIN=local go tool pprof -top -diff_base "$profiles/$safe.time.base.pb.gz" \
            "$profiles/$safe.time.new.pb.gz" 2>/dev/null | grep -A1 'flat%' | sed -n 2p)
        echo "where-it-grew: wall time: pprof's top row: $top"
        case "$top" in *"$function"*) ;; *)
            echo "where-it-grew: wall time: $function is not on top of pprof's -diff_base" >&2
            failures=$((failures + 1))
            ;;
        esac
    fi
}

check extra-work HEAP_EXTRA_WORK 'Collections/heap/drain' drainChecksumStep 'bytes'
check exist CHURN_EXISTENTIAL 'Collections/deque/churn' churnWeight 'witness table'
check class SORT_RETAIN_LOG 'Collections/sort/ints' sortedChecksum 'swift_retain'
check_time 'Collections/heap/drain' drainChecksumStep
if [ "$failures" -ne 0 ]; then
    echo "where-it-grew: $failures of 4 failed" >&2
    exit 1
fi
echo "where-it-grew: passed (4 of 4)"
