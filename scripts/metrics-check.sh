#!/usr/bin/env bash
# Probe's metrics checked with Prometheus's own tools on Examples/watched-service (built by the
# caller: swift build -c release --package-path Examples/watched-service). Installs Debian's
# prometheus (promtool with it) when missing. Quick by default (promtool check metrics, run by
# .ci/run); `--prometheus SECONDS` scrapes the service under wrk load with a real Prometheus (see
# the script it runs). On a machine with systemd, Debian's package also starts its own prometheus
# service (port 9090); the checks never use it: they start their own, on a free loopback port.
set -euo pipefail
cd "$(dirname "$0")/.."
needed=(prometheus)
for arg in "$@"; do [ "$arg" = "--prometheus" ] && needed+=(wrk); done
missing=()
for p in "${needed[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then sudo=(); elif command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
        echo "metrics-check: missing packages: ${missing[*]}; run as root or install sudo" >&2
        exit 1
    fi
    echo "metrics-check: installing ${missing[*]}" >&2
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
python3 Examples/watched-service/scripts/metrics_check.py "$(mktemp -d)" "$@"
