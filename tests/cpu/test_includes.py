#!/usr/bin/env python3
"""The include rules of the tree (docs/architecture.md): every quoted include
is written from one of the roots its folder may use and resolves from exactly
one of them, never from the including file's own folder, so that no header is
found by the order of the include paths.

  include/        the public headers only ("warpkit/warp.cuh")
  src/            the public headers, the internal root src/include, and src
                  (the kernels' device headers, "<area>/<name>.cuh")
  verify/         the public headers, src/include, verify
  programs/       the public headers, src/include, verify, programs
  tests/          all but src
  python/native/  the public headers and its own folder

Run from anywhere: test_includes.py <source root>."""
import os
import re
import sys

ROOTS = {
    "include": ["include"],
    "src": ["include", "src/include", "src"],
    "verify": ["include", "src/include", "verify"],
    "programs": ["include", "src/include", "verify", "programs"],
    "tests": ["include", "src/include", "verify", "programs", "tests"],
    "python/native": ["include", "python/native"],
}
SOURCES = (".c", ".h", ".cu", ".cuh", ".cpp")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(path):
    for folder in sorted(ROOTS, key=len, reverse=True):
        if path.startswith(folder + "/"):
            return folder
    return None


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else "."
    problems, checked = [], 0
    for folder in ROOTS:
        missing = [r for r in ROOTS[folder] + [folder] if not os.path.isdir(os.path.join(top, r))]
        if missing:
            problems.append(f"{folder}: root folders missing: {', '.join(missing)}")
            continue
        for dirpath, _, names in os.walk(os.path.join(top, folder)):
            for name in names:
                if not name.endswith(SOURCES):
                    continue
                path = os.path.relpath(os.path.join(dirpath, name), top)
                if folder_of(path) != folder:
                    continue
                roots = ROOTS[folder]
                text = open(os.path.join(top, path), encoding="utf-8", errors="replace").read()
                for spelled in INCLUDE.findall(text):
                    checked += 1
                    found = [r for r in roots if os.path.isfile(os.path.join(top, r, spelled))]
                    here = os.path.dirname(path)
                    if len(found) != 1:
                        where = ", ".join(found) if found else "none of " + ", ".join(roots)
                        problems.append(f'{path}: "{spelled}" resolves from {where}')
                    elif here not in roots and os.path.isfile(os.path.join(top, here, spelled)):
                        problems.append(f'{path}: "{spelled}" is found in its own folder first')
    for p in problems:
        print("FAIL:", p)
    print(f"{checked} includes checked, {len(problems)} against the rules")
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
