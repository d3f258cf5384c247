#!/usr/bin/env bash
# Fetches the newest CCCL's headers (CUB, Thrust, libcu++) for the benchmark's
# second CUB column, from the cuda-cccl wheel on PyPI, into
# third_party/cccl/include, and prints the CMake option that uses them:
#
#   scripts/fetch_cccl.sh && scripts/build.sh -DWARPKIT_CUB_LATEST_INCLUDE=$PWD/third_party/cccl/include
#
# CCCL_WHEEL picks the wheel's version (cuda-cccl 1.2.1 ships CCCL 3.6.0).
# Machines without PyPI take the folder as it is (it is plain headers).
set -euo pipefail
cd "$(dirname "$0")/.."
wheel=${CCCL_WHEEL:-1.2.1}
dest=third_party/cccl/include
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 -m pip download --quiet --no-deps "cuda-cccl==$wheel" -d "$tmp"
python3 - "$tmp" <<'PY'
import glob, sys, zipfile
tmp = sys.argv[1]
prefix = "cuda/cccl/headers/include/"
with zipfile.ZipFile(glob.glob(tmp + "/cuda_cccl-*.whl")[0]) as z:
    z.extractall(tmp + "/x", [m for m in z.namelist() if m.startswith(prefix)])
PY
rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
mv "$tmp/x/cuda/cccl/headers/include" "$dest"
version=$(sed -n 's/^#define CCCL_VERSION \([0-9]*\)/\1/p' "$dest/cuda/std/__cccl/version.h")
echo "CCCL $((version / 1000000)).$((version / 1000 % 1000)).$((version % 1000)) in $dest"
echo "configure with -DWARPKIT_CUB_LATEST_INCLUDE=$PWD/$dest"
