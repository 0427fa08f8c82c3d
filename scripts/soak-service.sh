#!/usr/bin/env bash
# Soak of Examples/watched-service: a stall every second on a random loop (block/sleep/starve)
# while /fast traffic goes on, for MINUTES minutes (default 10). Flags go to the script it runs
# (--wrk: traffic from wrk, as fast as it goes; --heap: heap profiles at the warm-up's end and at the end;
# --trim-at-end: malloc_trim(0) in the service through gdb before it stops, and what it gave back).
# Usage: scripts/soak-service.sh [MINUTES] [--wrk] [--heap] [--no-probe] [--trim-at-end]   (last results: docs/probe-in-a-server.md, "Soak")
set -euo pipefail
cd "$(dirname "$0")/.."
minutes="${1:-10}"
shift $(($# > 0 ? 1 : 0))
swift build -c release --package-path Examples/watched-service
python3 Examples/watched-service/scripts/soak.py "$minutes" "$(mktemp -d)" "$@"
