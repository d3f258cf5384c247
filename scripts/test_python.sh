#!/usr/bin/env bash
# The Python package's tests: installs it, with the library that
# scripts/build.sh built, into a virtual environment, and runs pytest (the
# GPU tests skip without a device). Usage: scripts/test_python.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${WK_PYTHON_VENV:-build/python-venv}
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip pytest setuptools wheel
WARPKIT_BUNDLE_LIBRARY=build/src/libwarpkit.so \
    "$venv/bin/python" -m pip install --quiet --no-build-isolation ./python
"$venv/bin/python" -m pytest python/tests -q "$@"
