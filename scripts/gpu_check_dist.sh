#!/usr/bin/env bash
# The multi-GPU check, on a machine with two or more NVIDIA GPUs: builds for
# sm_90, runs the default tests (test_dist with one process per GPU among
# them), compute-sanitizer over the tests of the calls the distributed ones
# use, and `warpkit-dist bench`, and writes <GPU>x<N>.json.
#
# Usage: WK_COMMIT=<sha measured> [WK_PHASE=all|tests|sanitizer|bench]
#        scripts/gpu_check_dist.sh [OUTPUT_DIR]
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0) unless the caller set it.
set -uo pipefail
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
phase=${WK_PHASE:-all}
cd "$(dirname "$0")/.."
out=${1:-${OUT:-results-out}}
logs=$out/logs
mkdir -p "$logs"
commit=${WK_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
case "$gpu" in
    *H100*) tag=H100x$gpus ;;
    *H200*) tag=H200x$gpus ;;
    *) tag=$(echo "$gpu" | tr -c 'A-Za-z0-9\n' '_')x$gpus ;;
esac
echo "== $gpus x $gpu ($tag), commit $commit"

# NCCL from the CUDA toolkit, else from the Python wheel (nvidia-nccl-cu*).
if [ -z "${NCCL_ROOT:-}" ] && ! ls /usr/local/cuda/include/nccl.h >/dev/null 2>&1; then
    NCCL_ROOT=$(python3 -c 'import nvidia.nccl, os; print(list(nvidia.nccl.__path__)[0])' 2>/dev/null)
    echo "NCCL from $NCCL_ROOT"
fi

echo "== build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DWARPKIT_WITH_NCCL=ON ${NCCL_ROOT:+-DNCCL_ROOT="$NCCL_ROOT"} \
    >"$logs/configure.log" 2>&1 &&
    cmake --build build-gpu >"$logs/build.log" 2>&1 || { tail -n 40 "$logs/configure.log" "$logs/build.log"; exit 1; }

if [ "$phase" = all ] || [ "$phase" = tests ]; then
    echo "== tests (default)"
    start=$(date +%s.%N)
    ctest --test-dir build-gpu --output-on-failure -V -j 4 -LE large >"$logs/ctest.log" 2>&1
    awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }' >"$logs/ctest-seconds.txt"
    grep -E "tests passed|Skipped|Failed|\*\*\*" "$logs/ctest.log" | tail -n 20
fi

if [ "$phase" = all ] || [ "$phase" = sanitizer ]; then
    echo "== compute-sanitizer"
    for tool in ${WK_SANITIZER_TOOLS:-memcheck racecheck synccheck}; do
        for t in ${WK_SANITIZER_TESTS:-test_chunked test_dist}; do
            echo "-- $tool $t"
            # NCCL's set-up probes the device through calls it expects to fail
            # (kernel attributes of images for other GPUs, peer access that is
            # already on): memcheck would count those as errors, so API errors
            # are not reported for the test that makes communicators; any
            # error of a warpkit call fails the test itself.
            api=()
            [ "$t" = test_dist ] && api=(--report-api-errors no)
            WK_TEST_QUICK=1 timeout 300 compute-sanitizer --target-processes all "${api[@]}" --tool "$tool" "build-gpu/tests/$t" \
                >"$logs/san_${tool}_$t.log" 2>&1
            grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed, " "$logs/san_${tool}_$t.log" | tail -n 4
        done
    done
fi

if [ "$phase" = all ] || [ "$phase" = bench ]; then
    echo "== bench"
    build-gpu/programs/warpkit-dist bench --json "$out/dist-bench.json" ${WK_DIST_BENCH_ARGS:-} | tee "$logs/dist-bench.log"
    python3 scripts/make_dist_results.py --commit "$commit" --ctest "$logs/ctest.log" \
        --ctest-seconds "$logs/ctest-seconds.txt" --sanitizer-dir "$logs" --bench "$out/dist-bench.json" \
        --out "$out/$tag.json" && echo "== wrote $out/$tag.json"
fi
