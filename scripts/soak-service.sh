#!/usr/bin/env bash
# Soak of Examples/watched-service: a stall every second on a random loop (block/sleep/starve)
# while /fast traffic goes on, for MINUTES minutes (default 10). See the script it runs.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes="${1:-10}"
swift build -c release --package-path Examples/watched-service
python3 Examples/watched-service/scripts/soak.py "$minutes" "$(mktemp -d)"
