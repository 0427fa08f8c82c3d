#!/usr/bin/env bash
# Compares perfkit's nearest-neighbour scaler with Pillow and libvips on the same pixels:
#   kernel:     Pillow Image.resize(..., Image.NEAREST) vs perfkit's kernel (and memset of the output)
#   end to end: `vips resize in.png out.png K --kernel nearest` vs `perfkit scale in.png out.png --factor K`
#               (all cores and one encode thread) vs Pillow resize(NEAREST) + save, zlib level 6 for all,
#               on several generated images: pixel art ×4, random noise ×4, sprites ×3 and ×5, and a
#               non-integer ×2.5; time, output size and perfkit's encode rate (Mpx/s).
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

# End to end: whole processes (Pillow in this process: open, resize, save), interleaved run by run
# so that a noisy moment touches every tool alike.
def noise_png(path, size):
    Image.frombytes("RGBA", (size, size), os.urandom(size * size * 4)).save(path, compress_level=6)

def sprites_png(path, size=256, cell=16):
    # Sprite-sheet-like: transparent cells, each with an outlined rectangle or disc in 3 of 8 colours.
    colours = [(rand() & 255, rand() & 255, rand() & 255, 255) for _ in range(8)]
    sheet = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    px = sheet.load()
    for cy in range(0, size, cell):
        for cx in range(0, size, cell):
            fill, edge, spot = (colours[rand() % 8] for _ in range(3))
            disc = rand() % 2 == 0
            for y in range(cell):
                for x in range(cell):
                    dx, dy = x - cell / 2 + 0.5, y - cell / 2 + 0.5
                    inside = dx * dx + dy * dy < (cell / 2 - 1) ** 2 if disc else 2 <= x < cell - 2 and 2 <= y < cell - 2
                    border = dx * dx + dy * dy < (cell / 2) ** 2 if disc else 1 <= x < cell - 1 and 1 <= y < cell - 1
                    if inside:
                        px[cx + x, cy + y] = spot if (x + y) % 7 == 0 else fill
                    elif border:
                        px[cx + x, cy + y] = edge
    sheet.save(path, compress_level=6)

noise = os.path.join(work, "noise.png"); noise_png(noise, size)
sprites = os.path.join(work, "sprites.png"); sprites_png(sprites)
cases = [("pixel art 1024² ×4", source, 4), ("noise 1024² ×4", noise, 4), ("sprites 256² ×3", sprites, 3),
         ("sprites 256² ×5", sprites, 5), ("pixel art 1024² ×2.5", source, 2.5)]

def timed(command):
    t0 = time.perf_counter()
    r = subprocess.run(command, check=True, capture_output=True, text=True)
    return time.perf_counter() - t0, r.stderr

def pillow_run(path, factor, out):
    t0 = time.perf_counter()
    im = Image.open(path)
    im.load()
    w, h = im.size
    im.resize((int(w * factor), int(h * factor)), Image.NEAREST).save(out, compress_level=6)
    return time.perf_counter() - t0

rows = []
for name, path, k in cases:
    outs = {tool: os.path.join(work, f"out-{tool}.png") for tool in ("vips", "perfkit", "perfkit1", "pillow")}
    times = {tool: [] for tool in outs}
    encode = []
    for _ in range(runs):
        times["vips"].append(timed(["vips", "resize", path, outs["vips"] + "[compression=6]", str(k),
                                    "--kernel", "nearest"])[0])
        t, err = timed([perfkit, "scale", path, outs["perfkit"], "--factor", str(k), "--compression", "6",
                        "--overwrite", "--time"])
        times["perfkit"].append(t)
        encode.append(float(re.search(r"encode\+write ([\d.]+) ms", err).group(1)))
        times["perfkit1"].append(timed([perfkit, "scale", path, outs["perfkit1"], "--factor", str(k),
                                        "--compression", "6", "--overwrite", "--encode-threads", "1"])[0])
        times["pillow"].append(pillow_run(path, k, outs["pillow"]))
    ow, oh = Image.open(outs["perfkit"]).size
    as_vips = Image.open(outs["perfkit"]).convert("RGBA").tobytes() == Image.open(outs["vips"]).convert("RGBA").tobytes()
    rows.append((name, {t: median_ms(v) for t, v in times.items()}, {t: os.path.getsize(o) for t, o in outs.items()},
                 ow * oh / 1e6 / (statistics.median(encode) / 1e3), as_vips))

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
print("end to end (ms, median) and output size; perfkit/vips time target <= 0.5 (pixel art), <= 0.7 (noise); "
      "size target <= 1.05x vips")
print(f"{'case':22} {'vips':>8} {'perfkit':>8} {'1 thread':>9} {'Pillow':>8} {'perfkit/vips':>13} "
      f"{'size vips':>10} {'perfkit':>10} {'Pillow':>10} {'size/vips':>9} {'encode':>11} pixels-as-vips")
for name, t, b, rate, as_vips in rows:
    print(f"{name:22} {t['vips']:8.1f} {t['perfkit']:8.1f} {t['perfkit1']:9.1f} {t['pillow']:8.1f} "
          f"{t['perfkit'] / t['vips']:12.2f}x {b['vips']:10d} {b['perfkit']:10d} {b['pillow']:10d} "
          f"{b['perfkit'] / b['vips']:8.2f}x {rate:6.0f} Mpx/s {as_vips}")
print("(pixels-as-vips: at a non-integer factor the two put pixel centres differently; see docs/pixelart.md)")
PY
