#!/usr/bin/env bash
# The Python package's tests: installs it, with the library that
# scripts/build.sh built, into a virtual environment, and runs pytest (the
# GPU tests skip without a device). Usage: scripts/test_python.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${WK_PYTHON_VENV:-build/python-venv}
if [ ! -x "$venv/bin/python" ] && ! python3 -m venv "$venv"; then
    # Debian's python3 keeps venv in a package of its own.
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq && $sudo apt-get install -y -qq python3-venv
    rm -rf "$venv" && python3 -m venv "$venv"
fi
# The extension module is compiled against Python's headers (Debian keeps
# them in python3-dev).
if ! "$venv/bin/python" -c 'import os, sysconfig; raise SystemExit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq && $sudo apt-get install -y -qq python3-dev
fi
# NumPy too: without it the GPU tests skip even where a GPU is; Dask for
# warpkit.dask's tests.
"$venv/bin/python" -m pip install --quiet --upgrade pip pytest setuptools wheel numpy "dask[array]"
WARPKIT_BUNDLE_LIBRARY=build/src/libwarpkit.so \
    "$venv/bin/python" -m pip install --quiet --no-build-isolation ./python
"$venv/bin/python" -m pytest python/tests -q "$@"
