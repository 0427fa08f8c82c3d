#!/usr/bin/env python3
"""Checks what each library links, from the manifest alone (no build): a target's closure is every
target and product it depends on, directly or through other targets.

- What a service embeds (Probe, ProbeNIO, ProbeServiceLifecycle, and ProbeRecords, Pprof under them)
  links no report model, wording, statistics, history, HTML or benchmark runner.
- The HTML report and the history link no benchmark runner (Harness) and no command line.
- Only ProbeHeap links the malloc interposer: Probe keeps glibc's malloc for services that do not ask,
  and perfkit's own executable keeps it for `--allocations` (LD_PRELOAD's interposer would lose to it).

Usage: check-closures.py [--print] [PACKAGE_DIR]   (--print: every checked closure, also when clean;
$SWIFT: the swift to run, as in the Makefile)
Exits 1 naming each target that links what it must not.
"""
import json
import os
import subprocess
import sys

SERVICE_FORBIDDEN = {"PerfReport", "Harness", "PerfStatistics", "History", "HTMLReport", "PerfkitMain"}
RULES = {
    "Probe": SERVICE_FORBIDDEN | {"CProbeHeapInterposer"},
    "ProbeHeap": SERVICE_FORBIDDEN,
    "ProbeBenchmarks": {"CProbeHeapInterposer"},
    "PerfkitCLI": {"CProbeHeapInterposer"},
    "ProbeNIO": SERVICE_FORBIDDEN,
    "ProbeServiceLifecycle": SERVICE_FORBIDDEN,
    "ProbeRecords": SERVICE_FORBIDDEN,
    "Pprof": SERVICE_FORBIDDEN,
    "HTMLReport": {"Harness", "PerfkitMain"},
    "History": {"Harness", "PerfkitMain", "HTMLReport"},
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
    for name, forbidden in RULES.items():
        if name not in targets:
            print(f"check-closures: no target {name} in the manifest", file=sys.stderr)
            failed = True
            continue
        linked = closure(name, targets)
        wrong = sorted(linked & forbidden)
        if wrong:
            print(f"check-closures: {name} links {', '.join(wrong)} (must not: {', '.join(sorted(forbidden))})",
                  file=sys.stderr)
            failed = True
        if verbose or wrong:
            print(f"{name}: {', '.join(sorted(linked)) or '(nothing)'}")
    if not failed:
        print(f"check-closures: {', '.join(RULES)} link nothing they must not")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
