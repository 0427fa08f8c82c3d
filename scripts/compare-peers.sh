#!/usr/bin/env bash
# Compares perfkit's nearest-neighbour scaler with Pillow and libvips on the same pixels:
#   kernel:     Pillow Image.resize(..., Image.NEAREST) vs perfkit's kernel (and memset of the output)
#   end to end: `vips resize in.png out.png 4 --kernel nearest` vs `perfkit scale in.png out.png --factor 4`
# on a generated RGBA 8-bit 1024² pixel-art PNG scaled ×4 to 4096², zlib level 6 for both encoders.
# Installs Pillow (pip) and libvips-tools (apt) when missing. Usage: scripts/compare-peers.sh [runs]
set -euo pipefail

runs="${1:-7}"
root="$(cd "$(dirname "$0")/.." && pwd)"

if ! python3 -c 'import PIL' 2>/dev/null; then
    echo "compare-peers: installing Pillow" >&2
    python3 -m pip install --quiet pillow >&2
fi
if ! command -v vips >/dev/null 2>&1; then
    echo "compare-peers: installing libvips-tools" >&2
    sudo=(); [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends libvips-tools >/dev/null
fi

perfkit="${PERFKIT:-$root/.build/release/perfkit}"
if [ ! -x "$perfkit" ]; then
    echo "compare-peers: building perfkit (release)" >&2
    (cd "$root" && swift build -c release --product perfkit >&2)
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

PERFKIT="$perfkit" WORK="$work" RUNS="$runs" python3 - <<'PY'
import os, platform, re, statistics, subprocess, time, datetime
from PIL import Image, __version__ as pillow_version

perfkit, work, runs = os.environ["PERFKIT"], os.environ["WORK"], int(os.environ["RUNS"])
source = os.path.join(work, "in.png")

# Pixel art: 8×8 blocks of 16 colours (4 translucent), 1 in 64 pixels a stray colour. Deterministic.
state = 0x5EED
def rand():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)
    return state >> 33
palette = [bytes([rand() & 255, rand() & 255, rand() & 255, 255 if i < 12 else 60 * (i - 11)]) for i in range(16)]
size = 1024
blocks = [rand() % 16 for _ in range((size // 8) ** 2)]
pixels = bytearray()
for y in range(size):
    for x in range(size):
        colour = rand() % 16 if rand() % 64 == 0 else blocks[(y // 8) * (size // 8) + x // 8]
        pixels += palette[colour]
image = Image.frombytes("RGBA", (size, size), bytes(pixels))
image.save(source, compress_level=6)
factor, out_size = 4, (size * 4, size * 4)

def median_ms(samples):
    return statistics.median(samples) * 1e3

# Kernel: Pillow's resize on decoded pixels.
image.load()
pillow = []
for _ in range(runs):
    t0 = time.perf_counter()
    scaled = image.resize(out_size, Image.NEAREST)
    pillow.append(time.perf_counter() - t0)
pillow_ms = median_ms(pillow)

# Kernel: perfkit, into a reused buffer, next to memset/memcpy of the output (same process).
out = os.path.join(work, "out-perfkit.png")
r = subprocess.run([perfkit, "scale", source, out, "--factor", str(factor), "--time", "--kernel-repeats",
                    str(max(runs, 15))], capture_output=True, text=True, check=True)
m = re.search(r"kernel ([\d.]+) ms, memset of output ([\d.]+) ms, memcpy of output ([\d.]+) ms", r.stderr)
kernel_ms, memset_ms, memcpy_ms = map(float, m.groups())

# Same pixels as Pillow (integer factor: no tie cases).
same = Image.open(out).convert("RGBA").tobytes() == scaled.tobytes()

# End to end: whole processes, decode + scale + encode at zlib level 6.
def e2e(command):
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        samples.append(time.perf_counter() - t0)
    return median_ms(samples)
vips_out = os.path.join(work, "out-vips.png")
vips_ms = e2e(["vips", "resize", source, vips_out + "[compression=6]", str(factor), "--kernel", "nearest"])
perfkit_ms = e2e([perfkit, "scale", source, out, "--factor", str(factor), "--compression", "6", "--overwrite"])
vips_version = subprocess.run(["vips", "--version"], capture_output=True, text=True).stdout.strip()

cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
print(f"compare-peers {datetime.date.today().isoformat()} on {cpu}, {os.cpu_count()} cores, {platform.system()} "
      f"{platform.release()}; Pillow {pillow_version}, {vips_version}; medians of {runs} runs")
print(f"input: RGBA 8-bit {size}x{size} pixel art -> x{factor} = {out_size[0]}x{out_size[1]}; "
      f"perfkit output identical to Pillow's: {same}")
print(f"kernel  Pillow resize NEAREST   {pillow_ms:8.2f} ms")
print(f"kernel  perfkit                 {kernel_ms:8.2f} ms   Pillow/perfkit = {pillow_ms / kernel_ms:5.2f}x (target >= 4)")
print(f"ceiling memset of output        {memset_ms:8.2f} ms   perfkit/memset = {kernel_ms / memset_ms:5.2f}x (target <= 1.25)")
print(f"ceiling memcpy of output        {memcpy_ms:8.2f} ms   perfkit/memcpy = {kernel_ms / memcpy_ms:5.2f}x")
print(f"e2e     vips resize --kernel nearest {vips_ms:8.2f} ms")
print(f"e2e     perfkit scale           {perfkit_ms:8.2f} ms   vips/perfkit = {vips_ms / perfkit_ms:5.2f}x (target > 1)")
print(f"output sizes: perfkit {os.path.getsize(out)} bytes, vips {os.path.getsize(vips_out)} bytes")
PY
