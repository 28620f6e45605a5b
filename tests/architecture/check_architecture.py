#!/usr/bin/env python3
"""Fails when a file under src/ includes what tests/architecture/allowed_dependencies.toml
forbids: another component's header against the allowed arrows, or a seam header (httplib,
sqlite3, dlfcn) outside the components that own it. Prints every violation as
file:line: message, then a one-line summary.

  check_architecture.py [--src DIR] [--table FILE]
"""
import argparse
import pathlib
import re
import sys
import tomllib

PROJECT_INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_]+)/[^"]+"')
SYSTEM_INCLUDE = re.compile(r'^\s*#\s*include\s+<([^>]+)>')
SOURCE_SUFFIXES = {".h", ".cc", ".cpp", ".cu", ".inc"}


def check(src: pathlib.Path, table: dict) -> list[str]:
    allowed = {name: set(deps) for name, deps in table["components"].items()}
    test_extra = {name: set(deps) for name, deps in table.get("tests", {}).items()}
    seams = table.get("seams", [])
    problems = []
    folders = sorted(p for p in src.iterdir() if p.is_dir())
    for folder in folders:
        if folder.name not in allowed:
            problems.append(f"{folder}: component '{folder.name}' is not in the table")
            continue
    for folder in folders:
        comp = folder.name
        if comp not in allowed:
            continue
        for path in sorted(folder.rglob("*")):
            if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
                continue
            is_test = (path.stem.endswith("_test") or path.stem.endswith("_test_util")
                       or "testing" in path.relative_to(folder).parts)
            rel = path.relative_to(src.parent)
            for lineno, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                m = PROJECT_INCLUDE.match(line)
                if m:
                    dep = m.group(1)
                    ok = allowed[comp] | (test_extra.get(comp, set()) if is_test else set())
                    if dep in allowed and dep != comp and dep not in ok:
                        problems.append(f"{rel}:{lineno}: {comp} must not include {dep} "
                                        f"('{line.strip()}'); allowed: "
                                        f"{', '.join(sorted(allowed[comp])) or 'nothing'}")
                    continue
                m = SYSTEM_INCLUDE.match(line)
                if not m:
                    continue
                for seam in seams:
                    if m.group(1) != seam["header"] or comp in seam["owners"]:
                        continue
                    if is_test and not seam.get("tests_too", True):
                        continue
                    problems.append(f"{rel}:{lineno}: {comp} must not include "
                                    f"<{seam['header']}>: {seam['why']}")
    return problems


def main() -> int:
    here = pathlib.Path(__file__).resolve().parent
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", type=pathlib.Path, default=here.parent.parent / "src")
    ap.add_argument("--table", type=pathlib.Path, default=here / "allowed_dependencies.toml")
    args = ap.parse_args()
    try:
        table = tomllib.loads(args.table.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        print(f"{args.table}: {e}", file=sys.stderr)
        return 2
    problems = check(args.src, table)
    for p in problems:
        print(p)
    files = sum(1 for p in args.src.rglob("*") if p.suffix in SOURCE_SUFFIXES)
    print(f"architecture: {files} files under {args.src}, {len(problems)} forbidden includes")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
