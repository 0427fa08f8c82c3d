#!/usr/bin/env bash
# Opens a generated HTML report in headless Chromium, fails on any console error, uncaught
# exception, blocked resource load or JavaScript dialog (an executed `alert` means a name was not
# escaped), checks that the filter box works, and saves a full-page screenshot.
#
#   scripts/html-check.sh REPORT.html OUTPUT.png
#
# Chromium comes from Debian's packages and is installed when missing and running as root (CI);
# otherwise the script says so and exits 1 (set HTML_CHECK_SKIP_IF_MISSING=1 to exit 0 instead).
# Talks to the browser over the DevTools protocol on a pipe (--remote-debugging-pipe), so only
# python3's standard library is needed.
set -euo pipefail

if [ $# -ne 2 ]; then
    echo "usage: $0 REPORT.html OUTPUT.png" >&2
    exit 1
fi
report=$1
output=$2
[ -f "$report" ] || { echo "html-check: $report: no such file" >&2; exit 1; }

find_chromium() {
    for candidate in chromium chromium-browser google-chrome google-chrome-stable; do
        if command -v "$candidate" >/dev/null 2>&1; then command -v "$candidate"; return 0; fi
    done
    return 1
}

if ! chromium=$(find_chromium); then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "html-check: installing chromium from the distribution's packages" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
        chromium=$(find_chromium)
    else
        echo "html-check: chromium is not installed (run as root to install it from Debian's packages)" >&2
        [ "${HTML_CHECK_SKIP_IF_MISSING:-0}" = 1 ] && exit 0
        exit 1
    fi
fi

exec python3 "$(dirname "$0")/html_check.py" "$chromium" "$report" "$output"
