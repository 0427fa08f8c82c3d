#!/usr/bin/env bash
# Checks that a count regression names the function it grew in (#50): builds the package twice
# (normal, and with -DHEAP_EXTRA_WORK, which adds work inside CollectionsWork.drainChecksumStep only),
# counts Collections/heap/drain's instructions under callgrind with each, gates the second on the
# first, and expects drainChecksumStep first in the "grew most" list and on top of
# `go tool pprof -top -diff_base`. Two release builds and two callgrind runs: a few minutes.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="${WORK:-$here/.build-where-it-grew}"
benchmark='Collections/heap/drain'
function=drainChecksumStep
mkdir -p "$work"

swift build -c release --product CollectionsBenchmarks --package-path "$here" >/dev/null
swift build -c release --product CollectionsBenchmarks --package-path "$here" \
    --scratch-path "$here/.build-extra-work" -Xswiftc -DHEAP_EXTRA_WORK >/dev/null
base_binary="$here/.build/release/CollectionsBenchmarks"
new_binary="$here/.build-extra-work/release/CollectionsBenchmarks"

rm -rf "$work/base" "$work/new"
"$base_binary" run --instructions --filter "$benchmark" --output "$work/base" >/dev/null
base_report=$(ls "$work"/base/*/report.json)
status=0
"$new_binary" run --instructions --filter "$benchmark" --baseline "$base_report" \
    --gate-metric instructions --output "$work/new" --summary "$work/summary.md" >"$work/new.txt" || status=$?
if [ "$status" -ne 2 ]; then
    echo "where-it-grew: expected the gate to exit 2 (regressed), got $status" >&2
    cat "$work/new.txt" >&2
    exit 1
fi
first=$(grep -A1 'grew most' "$work/summary.md" | sed -n 2p)
echo "where-it-grew: first in the list: $first"
case "$first" in
*"$function"*) ;;
*) echo "where-it-grew: $function is not first" >&2; cat "$work/summary.md" >&2; exit 1 ;;
esac

profiles=$(ls -d "$work"/new/*/profiles)
safe=$(echo "$benchmark" | sed 's/[^A-Za-z0-9._-]/_/g')
if command -v go >/dev/null; then
    top=$(GOTOOLCHAIN=local go tool pprof -top -diff_base "$profiles/$safe.base.pb.gz" "$profiles/$safe.new.pb.gz" 2>/dev/null \
        | grep -A1 'flat%' | sed -n 2p)
    echo "where-it-grew: pprof's top row: $top"
    case "$top" in
    *"$function"*) ;;
    *) echo "where-it-grew: $function is not on top of pprof's -diff_base" >&2; exit 1 ;;
    esac
else
    echo "where-it-grew: go is not installed; pprof's view not checked" >&2
fi
echo "where-it-grew: passed"
