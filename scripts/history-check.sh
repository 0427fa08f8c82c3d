#!/usr/bin/env bash
# The results history end to end, on a throwaway git repository (#39): a tiny package that uses
# perfkit's Harness and PerfkitMain, 26 commits, one of which makes `Demo/work/sum` 6% slower and a
# later one `Demo/work/mix` 15% faster. Every commit is built and measured (instruction counts under
# callgrind, exact and so repeatable) and filed with `run --history`; then
#   - `history changes` must report exactly those two change points, at those commits;
#   - `bisect` between the ends must name the slower commit in at most ⌈log2 25⌉ + 2 = 7 builds.
#
#   scripts/history-check.sh            (about 5 minutes on 2 cores; prints its own time)
#
# Debug builds: instruction counts need no optimiser to be exact, and a debug build of the tiny
# package's dependencies takes a third of a release build's time. The work folder is removed at the
# end (HISTORY_CHECK_KEEP=1 keeps it; HISTORY_CHECK_WORK names it, and a kept build folder makes
# the next run faster).
set -euo pipefail
start=$(date +%s)
root=$(cd "$(dirname "$0")/.." && pwd)
work=${HISTORY_CHECK_WORK:-$(mktemp -d /tmp/perfkit-history-check.XXXXXX)}
cleanup() { [ "${HISTORY_CHECK_KEEP:-0}" = 1 ] || rm -rf "$work/demo" "$work/history.sqlite" "$work/reports"; [ "${HISTORY_CHECK_KEEP:-0}" = 1 ] || [ -n "${HISTORY_CHECK_WORK:-}" ] || rm -rf "$work"; }
trap cleanup EXIT
command -v valgrind >/dev/null || { echo "history-check: valgrind is missing (scripts/setup.sh installs it)" >&2; exit 1; }

repo=$work/demo
rm -rf "$repo" "$work/history.sqlite" "$work/reports"
mkdir -p "$repo/Sources/DemoWork" "$repo/Sources/demo-bench"
cd "$repo"
git init -q -b main
git config user.name "history-check"
git config user.email "history-check@example.invalid"
identity=$(basename "$root" | tr '[:upper:]' '[:lower:]')

cat > Package.swift <<SWIFT
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "demo",
    dependencies: [.package(path: "$root")],
    targets: [
        .target(name: "DemoWork"),
        .executableTarget(
            name: "demo-bench",
            dependencies: [
                "DemoWork",
                .product(name: "Harness", package: "$identity"),
                .product(name: "PerfkitMain", package: "$identity"),
            ]),
    ]
)
SWIFT

# The work, in a module of its own so the benchmarks call it as a user's code is called.
write_work() {  # sum passes, mix passes
    cat > Sources/DemoWork/Work.swift <<SWIFT
/// Passes over the input: the number of instructions per operation is proportional to them.
public let sumPasses = $1
public let mixPasses = $2

public func sumWork(_ values: [Int]) -> Int {
    var total = 0
    for _ in 0..<sumPasses { for value in values { total &+= value } }
    return total
}

public func mixWork(_ values: [Int]) -> Int {
    var hash = 17
    for _ in 0..<mixPasses { for value in values { hash = hash &* 31 &+ value } }
    return hash
}

public func steadyWork(_ values: [Int]) -> Int { values.reduce(0, ^) }
SWIFT
}

cat > Sources/demo-bench/main.swift <<'SWIFT'
import DemoWork
import Harness
import PerfkitMain

@Sendable func input(_: Int?) -> [Int] { Array(0..<512) }

let demo = BenchmarkSuite(
    name: "Demo",
    benchmarks: [
        Benchmark("Demo/work/sum", setup: input, body: { values, n in for _ in 0..<n { blackHole(sumWork(values)) } }),
        Benchmark("Demo/work/mix", setup: input, body: { values, n in for _ in 0..<n { blackHole(mixWork(values)) } }),
        Benchmark(
            "Demo/work/steady", setup: input, body: { values, n in for _ in 0..<n { blackHole(steadyWork(values)) } }),
    ])

PerfkitMain.run(suites: [demo])
SWIFT

write_work 50 40
echo "# demo" > NOTES.md
git add -A && git commit -qm "c1: three benchmarks"
regression=9
improvement=18
for n in $(seq 2 26); do
    if [ "$n" -eq "$regression" ]; then
        write_work 53 40; message="c$n: sum does 3 more passes (6% slower)"
    elif [ "$n" -eq "$improvement" ]; then
        write_work 53 34; message="c$n: mix does 6 fewer passes (15% faster)"
    elif [ $((n % 3)) -eq 0 ]; then
        echo "// note $n: changes nothing measured" >> Sources/DemoWork/Work.swift; message="c$n: a comment"
    else
        echo "- change $n" >> NOTES.md; message="c$n: notes"
    fi
    git commit -qam "$message"
done
commits=($(git rev-list --first-parent --reverse main))
echo "history-check: ${#commits[@]} commits in $repo" >&2

scratch=$work/build
store=$work/history.sqlite
for index in "${!commits[@]}"; do
    commit=${commits[$index]}
    git checkout -q --detach "$commit"
    swift build --product demo-bench --scratch-path "$scratch" >/dev/null 2>"$work/build.log" || { cat "$work/build.log" >&2; exit 1; }
    "$scratch/debug/demo-bench" run --quick --instructions --allow-debug-build --output "$work/reports" \
        --history "$store" --machine history-check >/dev/null 2>"$work/run.log" || { cat "$work/run.log" >&2; exit 1; }
    echo "history-check: measured $((index + 1))/${#commits[@]} ${commit:0:10}" >&2
done
git checkout -q main
bench=$scratch/debug/demo-bench

"$bench" history changes --store "$store" --metric instructions
"$bench" history changes --store "$store" --metric instructions --format json > "$work/changes.json"
python3 - "$work/changes.json" "${commits[$((regression - 1))]}" "${commits[$((improvement - 1))]}" <<'PY'
import json, sys
changes = json.load(open(sys.argv[1]))["changes"]
found = sorted((c["benchmark"], c["commit"], c["isRegression"]) for c in changes)
expected = sorted([("Demo/work/sum", sys.argv[2], True), ("Demo/work/mix", sys.argv[3], False)])
if found != expected:
    sys.exit(f"history-check: FAILED: changes {found}, expected {expected}")
for c in changes:
    shift = c["relativeShift"] * 100
    if c["benchmark"] == "Demo/work/sum" and shift < 5 or c["benchmark"] == "Demo/work/mix" and shift > -10:
        sys.exit(f"history-check: FAILED: {c['benchmark']} moved {shift:.1f}%")
print("history-check: history changes: exactly the two change points, at their commits")
PY

# bisect between the ends: the worktree and its build folder are bisect's own (a fresh debug build
# of the dependencies, then incremental builds).
"$bench" bisect --good "${commits[0]}" --bad "${commits[25]}" --filter 'Demo/work/sum' --metric instructions \
    --configuration debug --quick --store "$store" --machine history-check --scratch-path "$work/bisect-build" \
    | tee "$work/bisect.txt"
grep -q "first commit at the bad level: ${commits[$((regression - 1))]}" "$work/bisect.txt" \
    || { echo "history-check: FAILED: bisect did not name ${commits[$((regression - 1))]}" >&2; exit 1; }
builds=$(sed -n 's/^bisect: \([0-9]*\) builds.*/\1/p' "$work/bisect.txt")
[ "$builds" -le 7 ] || { echo "history-check: FAILED: bisect took $builds builds (at most 7)" >&2; exit 1; }
echo "history-check: passed: bisect named the slower commit in $builds builds; took $(( $(date +%s) - start )) s"
