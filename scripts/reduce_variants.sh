#!/usr/bin/env bash
# Builds the library with other compile-time launch shapes (blocks per SM,
# 16-byte loads in flight per thread, threads per block) and benchmarks each
# beside CUB, to choose the defaults in src/reduce/plan.h from measurements.
# Usage: scripts/reduce_variants.sh OUTPUT_DIR "BLOCKS_PER_SM:UNROLL:THREADS ..." [bench options]
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1 variants=$2
shift 2
mkdir -p "$out"

build_variant() {
    local bps=$1 unroll=$2 threads=$3 dir=build-variant-$1-$2-$3
    local flags="-DWK_REDUCE_BLOCKS_PER_SM=$bps -DWK_REDUCE_UNROLL=$unroll -DWK_REDUCE_THREADS=$threads"
    cmake -S . -B "$dir" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DWARPKIT_BUILD_TESTS=OFF \
        -DCMAKE_C_FLAGS="$flags" -DCMAKE_CUDA_FLAGS="$flags" >/dev/null && cmake --build "$dir"
}

# Builds run side by side (each is a handful of translation units), benchmarks one at a time.
for v in $variants; do
    IFS=: read -r bps unroll threads <<<"$v"
    build_variant "$bps" "$unroll" "$threads" >"$out/build-$bps-$unroll-$threads.log" 2>&1 &
done
wait
for v in $variants; do
    IFS=: read -r bps unroll threads <<<"$v"
    exe=build-variant-$bps-$unroll-$threads/tools/warpkit
    [ -x "$exe" ] || { echo "build $v failed"; continue; }
    echo "== blocks/SM $bps, unroll $unroll, threads $threads"
    "$exe" bench "$@" 2>/dev/null | tee "$out/variant-$bps-$unroll-$threads.txt"
done
