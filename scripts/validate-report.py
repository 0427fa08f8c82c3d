#!/usr/bin/env python3
"""Validates perfkit report JSON files against the committed JSON Schema (draft 2020-12).

Usage: validate-report.py SCHEMA REPORT [REPORT ...]
Installs the `jsonschema` package from PyPI for the current user when it is missing.
"""
import json
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", "jsonschema"])
    import jsonschema


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 1
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    failed = 0
    for path in sys.argv[2:]:
        with open(path) as f:
            report = json.load(f)
        errors = sorted(validator.iter_errors(report), key=lambda e: list(e.absolute_path))
        for error in errors[:20]:
            location = "/".join(str(p) for p in error.absolute_path) or "(top level)"
            print(f"{path}: at {location}: {error.message}", file=sys.stderr)
        if errors:
            failed += 1
        else:
            print(f"{path}: valid ({len(report.get('benchmarks', []))} benchmarks)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
