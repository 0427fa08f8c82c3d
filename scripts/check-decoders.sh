#!/usr/bin/env bash
# Decodes perfkit's PNG output with Pillow and with libvips and compares the pixels with what the same
# decoder makes of libpng's own writer's output of the same scale (libpng itself is checked by the tests): every valid PngSuite file (all colour types and bit depths,
# palettes, transparency) scaled ×3 and ×2.5, written by the banded writer (--filter content) and by
# libpng (--filter libpng). Installs Pillow and libvips-tools when missing. Usage: scripts/check-decoders.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
python3 -c 'import PIL' 2>/dev/null || python3 -m pip install --quiet pillow >&2
if ! command -v vips >/dev/null 2>&1; then
    sudo=(); [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends libvips-tools >/dev/null
fi
perfkit="${PERFKIT:-$root/.build/release/perfkit}"
[ -x "$perfkit" ] || (cd "$root" && swift build -c release --product perfkit >&2)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

PERFKIT="$perfkit" WORK="$work" SUITE="$root/Tests/PixelArtTests/Fixtures/pngsuite" python3 - <<'PY'
import glob, os, subprocess, sys
from PIL import Image
perfkit, work, suite = os.environ["PERFKIT"], os.environ["WORK"], os.environ["SUITE"]

def pixels(path):
    image = Image.open(path)
    image.load()
    return image.mode, image.size, image.tobytes(), image.info.get("transparency")

checked, failures = 0, []
for source in sorted(glob.glob(os.path.join(suite, "**", "*.png"), recursive=True)):
    name = os.path.basename(source)
    if name.startswith("x"):
        continue  # the broken files
    for factor in ("3", "2.5"):
        out = {}
        for writer in ("content", "libpng"):
            out[writer] = os.path.join(work, f"{writer}.png")
            subprocess.run([perfkit, "scale", source, out[writer], "--factor", factor, "--filter", writer,
                            "--overwrite"], check=True, capture_output=True)
        # Pillow: the banded writer's file decodes to what libpng's writer's file decodes to.
        if pixels(out["content"]) != pixels(out["libpng"]):
            failures.append(f"{name} x{factor}: Pillow decodes the banded output differently")
        # vips: each file read by vips and written back out as vips' own PNG (vips' decoding, in a form
        # Pillow reads the same way for both); the two must hold the same pixels.
        copies = {}
        for writer, path in out.items():
            copies[writer] = os.path.join(work, f"vips-{writer}.png")
            subprocess.run(["vips", "copy", path, copies[writer]], check=True, capture_output=True)
        if pixels(copies["content"]) != pixels(copies["libpng"]):
            failures.append(f"{name} x{factor}: vips decodes the banded output differently")
        checked += 1
print(f"check-decoders: {checked} outputs (PngSuite files × 2 factors) decoded by Pillow and vips; "
      f"{len(failures)} differ")
for failure in failures:
    print("  " + failure)
sys.exit(1 if failures else 0)
PY
