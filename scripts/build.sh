#!/usr/bin/env bash
# Installs what the build needs if it is missing (CMake, Ninja, a C compiler,
# pkg-config; the CUDA toolkit must already be installed), then configures and
# builds warpkit into ./build. Extra arguments go to CMake's configure step.
# WK_CUDA_ARCHITECTURES, when set, is CMake's CUDA_ARCHITECTURES: CI, which
# has no GPU, builds PTX only (90-virtual), every kernel through the
# compiler's front end without the assembler's time.
set -euo pipefail
cd "$(dirname "$0")/.."

# CMake 3.24 or newer; an older or missing one is replaced from PyPI if apt's is too old.
cmake_ok() {
    command -v cmake >/dev/null &&
        printf '%s\n3.24\n' "$(cmake --version | head -n 1 | awk '{print $3}')" | sort -V -C -r 2>/dev/null
}
need_apt=()
command -v cmake >/dev/null || need_apt+=(cmake)
command -v ninja >/dev/null || need_apt+=(ninja-build)
command -v gcc >/dev/null || need_apt+=(gcc g++)
# pkg-config: the test that builds a program against the installed warpkit.pc.
command -v pkg-config >/dev/null || need_apt+=(pkg-config)
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "installing: ${need_apt[*]}"
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq && $sudo apt-get install -y -qq "${need_apt[@]}"
fi

if ! cmake_ok; then
    echo "CMake 3.24 or newer is needed; installing it from PyPI"
    python3 -m pip install --quiet --user "cmake>=3.24" && export PATH="$HOME/.local/bin:$PATH"
    cmake_ok || { echo "error: could not get CMake 3.24 or newer" >&2; exit 1; }
fi

if ! command -v nvcc >/dev/null; then
    for dir in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
        [ -x "$dir/nvcc" ] && export PATH="$dir:$PATH" && break
    done
fi
if ! command -v nvcc >/dev/null; then
    echo "error: the CUDA toolkit (nvcc) was not found; install it from NVIDIA and put nvcc on PATH" >&2
    exit 1
fi

arch=()
[ -n "${WK_CUDA_ARCHITECTURES:-}" ] && arch=(-DCMAKE_CUDA_ARCHITECTURES="$WK_CUDA_ARCHITECTURES")
cmake -S . -B build -G Ninja -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" "${arch[@]}" "$@"
cmake --build build
