#!/usr/bin/env bash
# The PostgreSQL results store (Integrations/PostgresHistory) against a real server: perfkit's store
# contract, through the store and through two real `perfkit-history` processes at once.
#
# Starts a throwaway PostgreSQL cluster in a temporary folder, listening on 127.0.0.1 only (no Unix
# socket) on a free port, with a password (scram-sha-256) for its superuser; runs the package's tests
# with PERFKIT_TEST_POSTGRES_URL naming it; stops and removes the cluster on exit, whatever happened.
# Not part of .ci/run: building the package from nothing (postgres-nio, its TLS and crypto packages, and
# perfkit's libraries again) takes about 15 minutes here, which would push .ci/run past 25. The last
# run's result is in docs/history.md ("PostgreSQL store").
#
# The build folder (Integrations/PostgresHistory/.build, git-ignored) is kept between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

# Debian's server, only when missing (as scripts/setup.sh does for its packages).
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ]; then
        sudo=()
    elif command -v sudo >/dev/null 2>&1; then
        sudo=(sudo)
    else
        echo "postgres-history-check: postgresql is missing; run as root or install sudo" >&2
        exit 1
    fi
    echo "postgres-history-check: installing postgresql" >&2
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends postgresql >/dev/null
fi
# Debian's package starts a cluster of its own on port 5432; this script neither uses nor stops it.
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
command -v swift >/dev/null 2>&1 || { echo "postgres-history-check: swift is not on PATH" >&2; exit 1; }

cluster=$(mktemp -d)
# initdb refuses to run as root: as root, the cluster belongs to the postgres user Debian's package made.
as_owner=()
if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$cluster"
    as_owner=(runuser -u postgres --)
fi
cleanup() {
    "${as_owner[@]}" "$bin/pg_ctl" -D "$cluster/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$cluster"
}
trap cleanup EXIT

password=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
printf '%s\n' "$password" >"$cluster/password"
chmod 600 "$cluster/password"
if [ "$(id -u)" -eq 0 ]; then chown postgres: "$cluster/password"; fi
"${as_owner[@]}" "$bin/initdb" -D "$cluster/data" -U postgres --auth=scram-sha-256 --pwfile="$cluster/password" \
    -E UTF8 --locale=C >"$cluster/initdb.log" 2>&1 || { cat "$cluster/initdb.log" >&2; exit 1; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"${as_owner[@]}" "$bin/pg_ctl" -D "$cluster/data" -l "$cluster/server.log" -w -s \
    -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories= -c max_connections=200" start ||
    { cat "$cluster/server.log" >&2; exit 1; }
echo "postgres-history-check: $("$bin/postgres" --version) on 127.0.0.1:$port ($cluster)"

export PERFKIT_TEST_POSTGRES_URL="postgresql://postgres:$password@127.0.0.1:$port/postgres"
package=Integrations/PostgresHistory
build_start=$(date +%s)
swift build --build-tests --package-path "$package"
echo "postgres-history-check: build took $(( $(date +%s) - build_start )) s"
swift test --skip-build --package-path "$package"
echo "postgres-history-check: finished in $(( $(date +%s) - start )) s"
