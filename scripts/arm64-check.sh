#!/usr/bin/env bash
# perfkit on arm64 Linux, for real, under emulation: a Debian sid arm64 root (debootstrap +
# qemu-user-static + Debian's swiftlang), perfkit built in it, and its arm64 checks run there.
#
#   scripts/arm64-check.sh            # everything (the first run makes the root: ~15 minutes)
#   scripts/arm64-check.sh prepare    # only the root
#   scripts/arm64-check.sh shell      # a shell in the root, with the checkout at /src/perfkit
#   scripts/arm64-check.sh exec CMD…  # one command in the root
#
# "Everything" builds perfkit for aarch64 inside the root and runs, in order: the test targets in
# ARM64_TESTS (Probe's, Harness's, PixelArt's, the ELF reader's and the report model's by default),
# `perfkit watch-demo` (three stalls, each named by its demo function), a quick run of DispatchBench's
# dispatch claims and one PixelArt benchmark (the report must say it ran emulated; each claim has
# compiled-form evidence or says it is unavailable), and `perfkit scale` over PngSuite, pixel-exact
# against this machine's x86-64 build. ARM64_NIO=1 also builds ProbeNIO and ProbeServiceLifecycle
# (swift-nio alone takes ~35 minutes to compile under emulation). ARM64_FILTER=REGEX runs only the
# tests it matches (swift test --filter), to recheck a few after a change; ARM64_TESTS_ONLY=1 builds
# and runs only the test targets (no release build, demo, quick run or PngSuite: ~1 hour less when cold).
#
# The root and the build folder live in $PERFKIT_ARM64_CACHE (default /var/cache/perfkit-arm64),
# outside any checkout, so a fresh clone reuses both and rebuilds incrementally: the checkout is
# copied to $cache/src by content (unchanged files keep their times). Emulation is ~20x slower than
# native and its times say nothing about arm64 hardware: never run this beside a measurement. Not
# part of .ci/run; its last result is in docs/platforms.md.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$PWD
cache=${PERFKIT_ARM64_CACHE:-/var/cache/perfkit-arm64}
root=$cache/root
stage=${1:-all}
log() { echo "arm64-check: $*" >&2; }

[ "$(id -u)" -eq 0 ] || { log "must run as root (debootstrap, chroot and mounts)"; exit 1; }
[ "$(uname -m)" = x86_64 ] || log "host is $(uname -m): qemu is used only where the kernel cannot run arm64 itself"

# The host's part: qemu-user-static registers itself with binfmt_misc, so the kernel hands every
# aarch64 executable in the root to qemu-aarch64-static.
host_packages=(qemu-user-static debootstrap binfmt-support rsync)
missing=()
for p in "${host_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || update-binfmts --enable qemu-aarch64
grep -q enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 || { log "binfmt_misc: qemu-aarch64 is not enabled"; exit 1; }

# The Debian mirror this machine is set up with (the only one it reaches).
mirror=$(sed -n 's/^URIs: *\([^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=$(sed -n 's/^deb \(http[^ ]*\/debian\) .*/\1/p' /etc/apt/sources.list 2>/dev/null | head -n 1)
[ -n "$mirror" ] || { log "no Debian mirror found in /etc/apt/sources.list.d or /etc/apt/sources.list"; exit 1; }

# Inside the root: Swift 6.2 from Debian (sid's swiftlang), perfkit's C libraries, and an empty
# lib_Testing_Foundation (Debian ships that cross-import overlay's module but not its library, so
# every test executable fails to link without it).
root_packages=(swiftlang git libc6-dev ca-certificates make libunwind-dev libpng-dev zlib1g-dev pkg-config valgrind
    golang-go)
make_root() {
    if [ ! -x "$root/usr/bin/apt-get" ]; then
        log "debootstrap: Debian sid arm64 from $mirror into $root (about 4 minutes)"
        rm -rf "$root"
        mkdir -p "$root"
        debootstrap --arch=arm64 --variant=minbase sid "$root" "$mirror" >"$cache/debootstrap.log" 2>&1 \
            || { log "debootstrap failed; see $cache/debootstrap.log"; exit 1; }
    fi
    # sid's Release files can read as expired at this machine's date.
    echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99perfkit-no-valid-until"
    cp /etc/gitconfig "$root/etc/gitconfig" 2>/dev/null || true
    local wanted
    wanted=$(printf '%s\n' "${root_packages[@]}" | sort | tr '\n' ' ')
    if [ "$(cat "$root/.perfkit-packages" 2>/dev/null)" != "$wanted" ]; then
        log "installing ${root_packages[*]} in the root (about 10 minutes the first time)"
        in_root sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            --no-install-recommends ${root_packages[*]} >/dev/null"
        in_root sh -c 'echo "" | cc -x c -shared -o /usr/local/lib/lib_Testing_Foundation.so - && ldconfig'
        echo "$wanted" >"$root/.perfkit-packages"
    fi
}

# Runs a command in the root, in a private mount namespace: every mount goes away with it, even
# when the command is killed. The checkout is at /src/perfkit, the build folder at /cache/build.
in_root() {
    mkdir -p "$cache/build" "$cache/src" "$root/src/perfkit" "$root/cache/build" "$root/cache/src" \
        "$root/opt/swift-packages"
    unshare --mount --propagation private -- sh -c '
        root=$1; checkout=$2; cache=$3; shift 3
        mount -t proc proc "$root/proc"
        mount --rbind /sys "$root/sys"
        mount --rbind /dev "$root/dev"
        [ -d /dev/pts ] && mount --bind /dev/pts "$root/dev/pts"
        cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
        [ -d /opt/swift-packages ] && mount --bind -o ro /opt/swift-packages "$root/opt/swift-packages"
        mount --bind "$checkout" "$root/src/perfkit"
        mount --bind "$cache/build" "$root/cache/build"
        mount --bind "$cache/src" "$root/cache/src"
        exec chroot "$root" env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"
    ' in_root "$root" "$checkout" "$cache" "$@"
}

mkdir -p "$cache"
make_root
log "root ready: $(in_root swift --version 2>/dev/null | head -n 1)"
case "$stage" in
    prepare) exit 0 ;;
    shell) in_root bash -c 'cd /src/perfkit && exec bash -i'; exit $? ;;
    exec) shift; in_root "$@"; exit $? ;;
esac

# --- The checks ---------------------------------------------------------------------------------
started=$(date +%s)
results=()
pass() { results+=("PASS $*"); log "PASS $*"; }
fail() { results+=("FAIL $*"); log "FAIL $*"; failures=$((failures + 1)); }
failures=0
out=$cache/out
summarize() {
    local elapsed=$(($(date +%s) - started))
    {
        echo "arm64-check $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -m) host, $(nproc) cores, $((elapsed / 60)) min${1:-}"
        echo "root: $(in_root swift --version 2>/dev/null | head -n 1)"
        printf '%s\n' "${results[@]}"
    } | tee "$out/summary.txt"
    log "logs in $out"
    [ "$failures" -eq 0 ]
}
rm -rf "$out"
mkdir -p "$out"

# The checkout, by content: rsync without times keeps unchanged files' times, so SwiftPM rebuilds
# only what changed since the last check, whichever clone it came from.
rsync -rlc --delete --exclude '/.build*' --exclude '/.git' --exclude '/Reports' --exclude '/.swiftpm' \
    "$checkout/" "$cache/src/"
# The test targets run here, and the NIO products only when asked (the manifest is trimmed in the copy).
tests=${ARM64_TESTS:-PerfReportTests ELFSymbolsTests HarnessTests ProbeTests PixelArtTests}
# Tests left out here, each with its reason (docs/platforms.md): a watchdog thread of another test is
# still named probe-wd- under emulation's slowness (cause not yet found); a blocked thread's stack is read from /proc/…/syscall,
# which does not work under emulation, and a 1 s profile takes over 3 s there
# (aStarvedPoolStillGetsAnswers); qemu-user keeps a guest thread's blocked signals to itself, so
# /proc's SigBlk never shows them (the two signal-blocked tests).
skips=(--skip aWatchdogStartedFromThePoolHasItsOwnNameAndIsNoPoolThread
    --skip aStarvedPoolStillGetsAnswers --skip aThreadBlockingTheSignalIsCountedNotDropped
    --skip aThreadThatUnblocksTheSignalIsSampledFromThen)
python3 - "$cache/src/Package.swift" "$tests" "${ARM64_NIO:-0}" <<'PY'
import re, sys
path, keep, nio = sys.argv[1], set(sys.argv[2].split()), sys.argv[3] == "1"
text = open(path).read()
def blocks(text, opener):
    """(start, end, name) of each `opener(name: "X", …)` call, its trailing comma included."""
    for match in re.finditer(re.escape(opener) + r'\(\s*name:\s*"([^"]+)"', text):
        depth, i = 0, match.start() + len(opener)
        while True:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
            if depth == 0: break
        if text[i] == ",": i += 1
        yield match.start(), i, match.group(1)
drop = [(a, b) for a, b, name in blocks(text, ".testTarget") if name not in keep]
if not nio:
    drop += [(a, b) for a, b, name in blocks(text, ".target") if name in ("ProbeNIO", "ProbeServiceLifecycle")]
    drop += [(a, b) for a, b, name in blocks(text, ".library") if name in ("ProbeNIO", "ProbeServiceLifecycle")]
for a, b in sorted(drop, reverse=True):
    text = text[:a] + text[b:]
open(path, "w").write(text)
PY

in_src() { in_root nice -n 10 sh -c 'cd /cache/src && "$@"' in_src "$@"; }
swiftpm=(--scratch-path /cache/build -j "$(nproc)")
tests_only=${ARM64_TESTS_ONLY:-0}
if [ "$tests_only" != 1 ]; then
    log "building perfkit (release) for aarch64: ~30-60 minutes the first time, minutes after a small change"
    if in_src swift build -c release --disable-index-store --product perfkit "${swiftpm[@]}" \
        >"$out/build-release.log" 2>&1; then
        pass "release build of perfkit ($(in_root uname -m))"
    else
        fail "release build of perfkit: see $out/build-release.log"
        tail -n 30 "$out/build-release.log" >&2
    fi
fi
perfkit=/cache/build/release/perfkit

log "building the test targets ($tests)"
# Debian's Go (1.25+) builds `go tool pprof` at its first use, into the build cache the tests share
# (perfkit-go-cache in /tmp): built here once, not by each test at once under emulation.
in_root env GOCACHE=/tmp/perfkit-go-cache GOTOOLCHAIN=local go tool pprof -h >/dev/null 2>&1 || true
# The empty lib_Testing_Foundation lives in /usr/local/lib, where gold does not look by itself.
if in_src swift build --build-tests "${swiftpm[@]}" -Xlinker -L/usr/local/lib >"$out/build-tests.log" 2>&1; then
    filter=()
    [ -n "${ARM64_FILTER:-}" ] && filter=(--filter "$ARM64_FILTER")
    if in_src swift test --skip-build "${swiftpm[@]}" "${skips[@]}" "${filter[@]}" >"$out/tests.log" 2>&1; then
        pass "tests: $(grep -E 'Test run with .* passed' "$out/tests.log" | tail -n 1)"
    else
        fail "tests: see $out/tests.log"
        grep -E 'error|failed|✘' "$out/tests.log" | head -n 30 >&2 || true
    fi
else
    fail "test build: see $out/build-tests.log"
    tail -n 30 "$out/build-tests.log" >&2
fi
if [ "${ARM64_NIO:-0}" = 1 ]; then
    # Targets, not products: SwiftPM builds the whole package for `--product` of an automatic library.
    if in_src swift build -c release --disable-index-store --target ProbeNIO "${swiftpm[@]}" \
        >"$out/build-nio.log" 2>&1 && in_src swift build -c release --disable-index-store \
        --target ProbeServiceLifecycle "${swiftpm[@]}" >>"$out/build-nio.log" 2>&1; then
        pass "ProbeNIO and ProbeServiceLifecycle build"
    else
        fail "ProbeNIO or ProbeServiceLifecycle: see $out/build-nio.log"
    fi
fi

if [ "$tests_only" = 1 ]; then summarize ", test targets only"; exit; fi

# The watchdog on the main queue: three stalls, each with its demo function in the stack. Under
# qemu-user, /proc shows the emulator's registers for a thread asleep in a syscall, so the sleep's
# stack can only come from the signal (--interrupt-sleeps); on arm64 hardware /proc is read as on x86-64.
emulated_flags() { [ "$(uname -m)" = aarch64 ] || echo --interrupt-sleeps; }
if in_root sh -c "cd /cache/src && $perfkit watch-demo $(emulated_flags) --output /cache/build/arm64-out/watch-demo --format json" \
    >"$out/watch-demo.log" 2>&1; then
    missing=$(for name in demoBusyLoop demoLockWait demoSleep; do
        grep -q "$name" "$out/watch-demo.log" || echo "$name"; done)
    if [ -z "$missing" ]; then pass "watch-demo: three stalls, demoBusyLoop, demoLockWait and demoSleep named"
    else fail "watch-demo: no frame names $(echo $missing) (see $out/watch-demo.log)"; fi
else
    fail "watch-demo exited non-zero (see $out/watch-demo.log)"
fi

# DispatchBench's dispatch claims and one PixelArt benchmark: an emulated environment, and claims
# that either carry compiled-form evidence or say it is unavailable.
rm -rf "$cache/build/arm64-out/run"
if in_root sh -c "cd /cache/src && $perfkit run --quick --filter 'DispatchBench/dispatch|PixelArt/scale/rgba8-1024-x2' \
    --output /cache/build/arm64-out/run --format json,markdown" >"$out/run.log" 2>&1; then
    report=$(ls "$cache"/build/arm64-out/run/*/report.json | head -n 1)
    cp "$report" "$out/run-report.json"
    if python3 scripts/validate-report.py Schema/report.schema.json "$report" >>"$out/run.log" 2>&1 &&
        python3 - "$report" >>"$out/run.log" 2>&1 <<'PY'; then
import json, sys
report = json.load(open(sys.argv[1]))
environment = report["environment"]
assert environment.get("architecture") == "aarch64", environment
assert environment.get("emulator"), "the report does not say it ran emulated"
ids = [b["id"] for b in report["benchmarks"]]
assert any(i.startswith("DispatchBench/dispatch") for i in ids) and any(i.startswith("PixelArt/scale") for i in ids), ids
claims = [b for b in report["benchmarks"] if b.get("claim") and b["id"].startswith("DispatchBench/dispatch")]
assert claims, "no dispatch claims"
read, unavailable = 0, 0
for b in claims:
    form = b.get("compiledForm") or {"kind": "unknown", "evidence": []}
    said = " ".join(form["evidence"]) + " " + b["claim"]["evidence"]
    if form["kind"] != "unknown": read += 1
    elif "unavailable" in said: unavailable += 1
    else: raise AssertionError(f"{b['id']}: no compiled form and no word that it is unavailable")
print(f"{len(ids)} benchmarks, {len(claims)} dispatch claims: {read} with compiled-form evidence, "
      f"{unavailable} unavailable; emulator {environment['emulator']}")
PY
        pass "quick run: $(tail -n 1 "$out/run.log")"
    else
        fail "quick run's report (see $out/run.log)"
    fi
else
    fail "perfkit run exited non-zero (see $out/run.log)"
fi

# PngSuite scaled by both builds: the same files fail, the others decode to the same rows.
pngsuite=Tests/PixelArtTests/Fixtures/pngsuite/png
log "scaling PngSuite on x86-64 (native release build) and aarch64"
if swift build -c release --product perfkit >"$out/build-native.log" 2>&1; then
    rm -rf "$out/scale-x86_64" "$cache/build/arm64-out/scale"
    mkdir -p "$out/scale-x86_64" "$cache/build/arm64-out/scale"
    .build/release/perfkit scale "$pngsuite" --output-dir "$out/scale-x86_64" --factor 3 \
        >"$out/scale-x86_64.log" 2>&1 || true
    in_root sh -c "cd /cache/src && $perfkit scale $pngsuite --output-dir /cache/build/arm64-out/scale --factor 3" \
        >"$out/scale-aarch64.log" 2>&1 || true
    if python3 - "$out/scale-x86_64" "$cache/build/arm64-out/scale" >"$out/scale-compare.log" 2>&1 <<'PY'; then
import os, sys, zlib
def rows(path):
    data, chunks, at = open(path, "rb").read(), {}, 8
    while at < len(data):
        length = int.from_bytes(data[at:at + 4], "big")
        kind = data[at + 4:at + 8].decode("latin-1")
        chunks.setdefault(kind, []).append(data[at + 8:at + 8 + length])
        at += 12 + length
    header = chunks["IHDR"][0]
    width, height, depth, color, interlace = (int.from_bytes(header[0:4], "big"), int.from_bytes(header[4:8], "big"),
                                               header[8], header[9], header[12])
    raw = zlib.decompress(b"".join(chunks["IDAT"]))
    extra = b"".join(chunks.get("PLTE", []) + chunks.get("tRNS", []))
    if interlace:
        return header, extra, raw  # filtered bytes: equal when the pixels are (same filter choice)
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color]
    bpp, stride = max(1, channels * depth // 8), (width * channels * depth + 7) // 8
    out, previous = bytearray(), bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = previous[x], previous[x - bpp] if x >= bpp else 0
            if kind == 1: line[x] = (line[x] + a) & 255
            elif kind == 2: line[x] = (line[x] + b) & 255
            elif kind == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += line
        previous = line
    return header, extra, bytes(out)
x86, arm = sys.argv[1], sys.argv[2]
names = sorted(os.listdir(x86)) if os.path.isdir(x86) else []
other = sorted(os.listdir(arm)) if os.path.isdir(arm) else []
assert names, "the x86-64 build wrote nothing"
assert names == other, f"different outputs: only x86-64 {sorted(set(names) - set(other))}, only aarch64 {sorted(set(other) - set(names))}"
differing = [n for n in names if rows(os.path.join(x86, n)) != rows(os.path.join(arm, n))]
assert not differing, f"pixels differ: {differing}"
print(f"{len(names)} images pixel-exact")
PY
        pass "scale on PngSuite: $(tail -n 1 "$out/scale-compare.log")"
    else
        fail "scale on PngSuite: $(tail -n 1 "$out/scale-compare.log")"
    fi
else
    fail "native release build for the PngSuite reference (see $out/build-native.log)"
fi

summarize
