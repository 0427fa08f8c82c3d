#!/usr/bin/env bash
# perfkit on arm64 Linux, for real, under emulation: a Debian sid arm64 root (debootstrap +
# qemu-user-static + Debian's swiftlang), perfkit built in it, and its arm64 checks run there.
#
#   scripts/arm64-check.sh            # everything (the first run makes the root: ~15 minutes)
#   scripts/arm64-check.sh prepare    # only the root
#   scripts/arm64-check.sh shell      # a shell in the root, with the checkout at /src/perfkit
#   scripts/arm64-check.sh exec CMD…  # one command in the root
#
# The root and the build folder live in $PERFKIT_ARM64_CACHE (default /var/cache/perfkit-arm64),
# outside any checkout, so a fresh clone reuses both: the packages perfkit depends on are built once.
# Emulation is ~20x slower than native and its times say nothing about arm64 hardware: never run
# this beside a measurement. Not part of .ci/run; its last result is in docs/platforms.md.
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
host_packages=(qemu-user-static debootstrap binfmt-support)
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
root_packages=(swiftlang git libc6-dev ca-certificates make libunwind-dev libpng-dev zlib1g-dev pkg-config)
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
    mkdir -p "$cache/build" "$root/src/perfkit" "$root/cache/build" "$root/opt/swift-packages"
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
        exec chroot "$root" env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 "$@"
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
