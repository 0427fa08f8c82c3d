#!/usr/bin/env python3
"""Checks what each library links, from the manifest alone (no build): a target's closure is every
target and product it depends on, directly or through other targets.

- What a service embeds (Probe, ProbeHeap, ProbeNIO, ProbeServiceLifecycle, and ProbeRecords, Pprof
  under them) links only what its allow-list names: a new dependency of Probe is a decision, made here.
- The HTML report and the history link no benchmark runner (Harness) and no command line.
- Only ProbeHeap links the malloc interposer: perfkit's own executable keeps glibc's malloc for
  `--allocations` (LD_PRELOAD's interposer would lose to it).

Usage: check-closures.py [--print] [PACKAGE_DIR]   (--print: every checked closure, also when clean;
$SWIFT: the swift to run, as in the Makefile)
Exits 1 naming each target that links what it must not.
"""
import json
import os
import subprocess
import sys

# What a service may link, closure included: each addition is a cost every service embedding Probe
# pays (build time, binary size, a package to trust), so it is listed here on purpose.
PROBE_ALLOWED = {
    "ProbeRecords", "CProbe", "ELFSymbols", "PerfkitPprof", "PerfkitPlatform", "swift-log:Logging", "swift-metrics:Metrics",
}
ALLOWED = {
    "ProbeRecords": set(),
    "PerfkitPprof": {"ProbeRecords"},
    "Probe": PROBE_ALLOWED,
    "ProbeHeap": PROBE_ALLOWED | {"Probe", "CProbeHeap", "CProbeHeapInterposer"},
    "ProbeNIO": PROBE_ALLOWED | {"Probe", "swift-nio:NIOCore"},
    "ProbeServiceLifecycle": PROBE_ALLOWED | {"Probe", "swift-service-lifecycle:ServiceLifecycle"},
}
FORBIDDEN = {
    "HTMLReport": {"Harness", "PerfkitMain"},
    "PerfkitHistory": {"Harness", "PerfkitMain", "HTMLReport"},
    "ProbeBenchmarks": {"CProbeHeapInterposer"},
    "PerfkitCLI": {"CProbeHeapInterposer"},
}


def dependency_name(dependency: dict) -> str:
    """A target's own name, or `package:Product` for a product of another package."""
    kind, value = next(iter(dependency.items()))
    if kind == "product":
        return f"{value[1]}:{value[0]}"
    return value[0]


def closure(name: str, targets: dict) -> set:
    seen, stack = set(), [name]
    while stack:
        for dependency in targets.get(stack.pop(), []):
            if dependency not in seen:
                seen.add(dependency)
                stack.append(dependency)
    return seen


def main() -> int:
    args = [a for a in sys.argv[1:] if a != "--print"]
    verbose = "--print" in sys.argv[1:]
    package_dir = args[0] if args else "."
    manifest = json.loads(
        subprocess.run(
            [os.environ.get("SWIFT", "swift"), "package", "--package-path", package_dir, "dump-package"],
            check=True, capture_output=True, text=True,
        ).stdout
    )
    targets = {t["name"]: [dependency_name(d) for d in t["dependencies"]] for t in manifest["targets"]}
    failed = False
    checked = list(ALLOWED) + list(FORBIDDEN)
    for name in checked:
        if name not in targets:
            print(f"check-closures: no target {name} in the manifest", file=sys.stderr)
            failed = True
            continue
        linked = closure(name, targets)
        if name in ALLOWED:
            wrong = sorted(linked - ALLOWED[name])
            rule = f"may link only {', '.join(sorted(ALLOWED[name])) or 'nothing'}"
        else:
            wrong = sorted(linked & FORBIDDEN[name])
            rule = f"must not: {', '.join(sorted(FORBIDDEN[name]))}"
        if wrong:
            print(f"check-closures: {name} links {', '.join(wrong)} ({rule})", file=sys.stderr)
            failed = True
        if verbose or wrong:
            print(f"{name}: {', '.join(sorted(linked)) or '(nothing)'}")
    if not failed:
        print(f"check-closures: {', '.join(checked)} link nothing they must not")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
