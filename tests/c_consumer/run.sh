#!/usr/bin/env bash
# Installs warpkit from the build tree into a scratch prefix, then builds
# consumer.c against that prefix with the C compiler in strict C11 mode, and
# runs it. Usage: run.sh BUILD_DIR CUDA_INCLUDE_DIR CUDA_LIBRARY_DIR
set -eu
build=$1 cuda_include=$2 cuda_lib=$3
here=$(cd "$(dirname "$0")" && pwd)
prefix=$build/consumer-install
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(ls -d "$prefix"/lib*/ | head -n 1)
${CC:-gcc} -std=c11 -pedantic -Wall -Wextra -Werror \
    -I "$prefix/include" -I "$cuda_include" "$here/consumer.c" \
    -L "$libdir" -lwarpkit -L "$cuda_lib" -lcudart -Wl,-rpath,"$libdir" -Wl,-rpath,"$cuda_lib" \
    -o "$build/consumer"
"$build/consumer"
