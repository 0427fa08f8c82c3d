#!/usr/bin/env bash
# Installs what perfkit needs from Debian's packages, only when something is missing.
# Safe to run again: it does nothing when everything is present.
set -euo pipefail

# golang-go: its `go tool pprof` reads the pprof files of `perfkit stalls --format pprof` in the tests.
packages=(libunwind-dev libpng-dev zlib1g-dev valgrind pkg-config hyperfine golang-go)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then
        sudo=()
    elif command -v sudo >/dev/null 2>&1; then
        sudo=(sudo)
    else
        echo "setup: missing packages: ${missing[*]}; run as root or install sudo" >&2
        exit 1
    fi
    echo "setup: installing ${missing[*]}" >&2
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

command -v swift >/dev/null 2>&1 || { echo "setup: swift is not on PATH (Swift 6.1 or newer is needed)" >&2; exit 1; }
