#!/usr/bin/env bash
# Installs warpkit from the build tree into a scratch prefix, then builds
# consumer.c against that prefix with the C compiler in strict C11 mode, and
# runs it. Usage: run.sh BUILD_DIR CUDART_LIBRARY_FILE CUDA_INCLUDE_DIR...
set -eu
build=$1 cudart=$2
shift 2
cuda_lib=$(dirname "$cudart")
includes=()
for dir in "$@"; do includes+=(-I "$dir"); done
here=$(cd "$(dirname "$0")" && pwd)
prefix=$build/consumer-install
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(ls -d "$prefix"/lib*/ | head -n 1)
${CC:-gcc} -std=c11 -pedantic -Wall -Wextra -Werror \
    -I "$prefix/include" "${includes[@]}" "$here/consumer.c" \
    -L "$libdir" -lwarpkit "$cudart" -Wl,-rpath,"$libdir" -Wl,-rpath,"$cuda_lib" \
    -o "$build/consumer"
"$build/consumer"
