#!/usr/bin/env bash
# Probe's whole-process profile against perf (cpu-clock, frame pointers) on Examples/watched-service
# under wrk load: the top 5 functions by self samples, each share, and the profile's CPU time against
# /proc/PID/stat (Examples/watched-service/scripts/profile_check.py). Installs Debian's linux-perf and
# wrk when missing; builds the example in release. Not run by .ci/run (about a minute, and it needs
# perf_event_open for software events); its last result is in docs/probe-in-a-server.md.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
for p in linux-perf wrk; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then sudo=(); elif command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
        echo "profile-check: missing packages: ${missing[*]}; run as root or install sudo" >&2
        exit 1
    fi
    echo "profile-check: installing ${missing[*]}" >&2
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
perf stat -e cpu-clock -- true >/dev/null 2>&1 || {
    echo "profile-check: perf cannot count cpu-clock here (perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid))" >&2
    exit 1
}
swift build -c release --package-path Examples/watched-service
WATCHED_SERVICE_BINARY=$PWD/Examples/watched-service/.build/release/watched-service \
    python3 Examples/watched-service/scripts/profile_check.py "$(mktemp -d)"
