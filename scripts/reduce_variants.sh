#!/usr/bin/env bash
# Builds the library with other compile-time launch shapes (blocks per SM
# and 16-byte loads in flight per thread) and benchmarks each beside CUB, to
# choose the defaults in src/reduce/plan.h from measurements.
# Usage: scripts/reduce_variants.sh OUTPUT_DIR "BLOCKS_PER_SM:UNROLL ..." [bench options]
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1 variants=$2
shift 2
mkdir -p "$out"
for v in $variants; do
    bps=${v%:*} unroll=${v#*:}
    dir=build-variant-$bps-$unroll
    flags="-DWK_REDUCE_BLOCKS_PER_SM=$bps -DWK_REDUCE_UNROLL=$unroll"
    cmake -S . -B "$dir" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DWARPKIT_BUILD_TESTS=OFF \
        -DCMAKE_C_FLAGS="$flags" -DCMAKE_CUDA_FLAGS="$flags" >/dev/null &&
        cmake --build "$dir" >"$out/build-$bps-$unroll.log" 2>&1 || { echo "build $v failed"; continue; }
    echo "== blocks/SM $bps, unroll $unroll"
    "$dir/tools/warpkit" bench "$@" 2>/dev/null | tee "$out/variant-$bps-$unroll.txt"
done
