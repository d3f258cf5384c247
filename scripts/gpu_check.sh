#!/usr/bin/env bash
# The GPU check, run on a machine with an NVIDIA GPU: builds for sm_90, runs
# every test, compute-sanitizer (memcheck, racecheck, synccheck) over the GPU
# tests, the device info, the benchmarks against CUB (reduce, scan, select) and
# the ladders, and writes <GPU>.json in the results format of bench/results/.
#
# Usage: WK_COMMIT=<sha measured>
#        [WK_PHASE=all|tests|tests-default|tests-large|sanitizer|bench|ladder]
#        [WK_CTEST_ARGS=... WK_CTEST_APPEND=1] [WK_SANITIZER_TOOLS=... WK_SANITIZER_TESTS=...]
#        scripts/gpu_check.sh [OUTPUT_DIR]
# WK_PHASE splits the check in runs of the same build and OUTPUT_DIR: "tests"
# (CTest: the default run, timed, then the label large; "tests-default" and
# "tests-large" run one of the two), "sanitizer" (compute-sanitizer), "bench"
# (info, benchmarks and the results file, which reads the logs the first two
# left in OUTPUT_DIR) and "ladder" (the ladders). The logs are also packed
# into OUTPUT_DIR/logs.tgz as each test run, sanitizer run and benchmark ends.
set -uo pipefail
phase=${WK_PHASE:-all}
cd "$(dirname "$0")/.."
out=${1:-${OUT:-results-out}}
mkdir -p "$out"
commit=${WK_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
# A copy of a working tree can differ from its HEAD: say so rather than
# credit HEAD with what it does not contain. Pass WK_COMMIT to name the tree.
if [ -z "${WK_COMMIT:-}" ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    commit="$commit-modified"
fi
logs=$out/logs
mkdir -p "$logs"

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
case "$gpu" in
    *H100*) tag=H100 ;;
    *H200*) tag=H200 ;;
    *) tag=$(echo "$gpu" | tr -c 'A-Za-z0-9\n' '_') ;;
esac
echo "== $gpu ($tag), commit $commit"

echo "== build"
# The newest CUB's column, where scripts/fetch_cccl.sh left its headers.
latest=(-DWARPKIT_CUB_LATEST_INCLUDE=)
[ -f third_party/cccl/include/cub/version.cuh ] && latest=(-DWARPKIT_CUB_LATEST_INCLUDE="$PWD/third_party/cccl/include")
cmake -S . -B build-gpu -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 "${latest[@]}" >"$logs/configure.log" 2>&1 &&
    cmake --build build-gpu >"$logs/build.log" 2>&1 || { tail -n 40 "$logs/build.log"; exit 1; }

# Seconds since a `date +%s.%N` time, to a tenth.
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# Every log so far in one archive, OUTPUT_DIR/logs.tgz, renewed as each
# phase ends: a run stopped later still leaves what it had finished.
pack_logs() { tar czf "$out/logs.tgz.part" -C "$out" logs && mv "$out/logs.tgz.part" "$out/logs.tgz"; }
trap pack_logs EXIT

if [ "$phase" = all ] || [ "$phase" = tests ] || [ "$phase" = tests-default ]; then
echo "== tests (default)"
# The default run: what the README's `ctest --test-dir build -j 4` runs
# (the label large left out: there its tests only skip), timed: the wall
# seconds go to ctest-seconds.txt, one line per run, which the results file
# sums.
# WK_CTEST_ARGS narrows the run (for example -R '^test_select$' in one call
# and -E '^test_select$' in another), so that the tests can be split over
# calls shorter than a time limit; WK_CTEST_APPEND=1 adds to the logs instead
# of starting them over. The results file counts every test line in the logs.
if [ "${WK_CTEST_APPEND:-0}" != 1 ]; then
    : >"$logs/ctest.log"
    : >"$logs/ctest-seconds.txt"
fi
start=$(date +%s.%N)
# shellcheck disable=SC2086 # the arguments are meant to split
ctest --test-dir build-gpu --output-on-failure -V -j 4 -LE large ${WK_CTEST_ARGS:-} >>"$logs/ctest.log" 2>&1
seconds=$(since "$start")
echo "$seconds" >>"$logs/ctest-seconds.txt"
grep -E "tests passed|Skipped|Failed|\*\*\*" "$logs/ctest.log" | tail -n 20
echo "default ctest: $seconds s"
# The command's own check, whose families the results file lists.
build-gpu/programs/warpkit verify --quick >"$logs/verify.log" 2>&1
grep -E "^== |passed, " "$logs/verify.log"
pack_logs
fi

if [ "$phase" = all ] || [ "$phase" = tests ] || [ "$phase" = tests-large ]; then
echo "== tests (label large)"
# The long lists (sizes over 2^31 elements, the largest shape edges): counted
# in the results file, not timed there. One at a time: each takes tens of GiB.
[ "${WK_CTEST_APPEND:-0}" = 1 ] || : >"$logs/ctest-large.log"
start=$(date +%s.%N)
# shellcheck disable=SC2086
WK_TEST_LARGE=1 ctest --test-dir build-gpu --output-on-failure -V -L large ${WK_CTEST_ARGS:-} \
    >>"$logs/ctest-large.log" 2>&1
grep -E "tests passed|Skipped|Failed|\*\*\*" "$logs/ctest-large.log" | tail -n 10
echo "large ctest: $(since "$start") s"
fi

if [ "$phase" = all ] || [ "$phase" = sanitizer ]; then
echo "== compute-sanitizer"
# WK_SANITIZER_TOOLS and WK_SANITIZER_TESTS narrow the run, so that it can be
# split over calls shorter than a time limit; each tool and test keeps its
# own log (san_TOOL_TEST.log), which the results file reads.
[ "${WK_CTEST_APPEND:-0}" = 1 ] || : >"$logs/sanitizer.log"
for tool in ${WK_SANITIZER_TOOLS:-memcheck racecheck synccheck}; do
    for t in ${WK_SANITIZER_TESTS:-test_reduce test_reduce_api test_scan test_scan_api test_select test_select_api \
        test_shared_context test_primitives test_compact_primitives test_ladder test_repro_gpu \
        test_segmented test_segmented_repro test_chunked test_contract test_entry_points}; do
        [ -x "build-gpu/tests/$t" ] || continue
        echo "-- $tool $t" | tee -a "$logs/sanitizer.log"
        WK_TEST_QUICK=1 compute-sanitizer --tool "$tool" "build-gpu/tests/$t" >"$logs/san_${tool}_$t.log" 2>&1
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed, " "$logs/san_${tool}_$t.log" | tee -a "$logs/sanitizer.log"
        pack_logs
    done
done

fi
case "$phase" in tests | tests-default | tests-large | sanitizer) exit 0 ;; esac

if [ "$phase" != ladder ]; then
echo "== info"
build-gpu/programs/warpkit info | tee "$logs/info.log"

echo "== bench"
# WK_BENCH_OPS picks the benchmarks of this run (default: all four), and
# WK_BENCH_REGIME their regimes (default all: cold over every size, warm and
# graph up to 2^24); the results file takes every bench JSON present in
# OUTPUT_DIR.
for op in ${WK_BENCH_OPS:-reduce scan select segmented}; do
    json=$out/bench-$op.json
    rm -f "$json" # a run that stops on a wrong answer writes none
    build-gpu/programs/warpkit bench --op "$op" --repeats 15 --regime "${WK_BENCH_REGIME:-all}" --json "$json" \
        2>"$logs/bench-$op-progress.log" |
        tee "$logs/bench-$op.log"
    tail -n 3 "$logs/bench-$op-progress.log"
    pack_logs
done

# Every bench run that finished: the reduce rows, then the scan rows, the
# select rows, the segmented rows and the reproducible segmented rows alone.
bench_args=()
for f in "$out/bench-reduce.json" "$out/bench-scan.json" "$out/bench-select.json" "$out/bench-segmented.json" \
    "$out/bench-segmented-repro.json"; do
    [ -s "$f" ] && bench_args+=(--bench "$f")
done
ctest_args=(--ctest "$logs/ctest.log")
[ -s "$logs/ctest-large.log" ] && ctest_args+=(--ctest-large "$logs/ctest-large.log")
[ -s "$logs/ctest-seconds.txt" ] && ctest_args+=(--ctest-seconds "$logs/ctest-seconds.txt")
[ -s "$logs/verify.log" ] && ctest_args+=(--verify "$logs/verify.log")
python3 scripts/make_results.py --commit "$commit" "${ctest_args[@]}" --sanitizer-dir "$logs" \
    "${bench_args[@]}" --out "$out/$tag.json"
echo "== wrote $out/$tag.json"
fi
[ "$phase" = bench ] && exit 0

echo "== ladder"
: >"$logs/ladder.log"
for dtype in f64 f32 i32; do
    for n in 2^24 16777223 1000003; do
        build-gpu/programs/warpkit ladder --n "$n" --dtype "$dtype" --repeats 5 >>"$logs/ladder.log" 2>&1
    done
done
echo "ladder checks: $(grep -c 'TEST PASS' "$logs/ladder.log") TEST PASS, $(grep -c 'TEST FAIL' "$logs/ladder.log") TEST FAIL"
build-gpu/programs/warpkit ladder --n 2^26 --dtype f64 --json "$out/ladder-$tag.json" | tee "$logs/ladder-2p26.log" | tail -n 15

echo "== scan ladder"
: >"$logs/ladder-scan.log"
for dtype in f64 f32 i32; do
    for n in 2^24 16777223 1000003 300; do
        build-gpu/programs/warpkit ladder --op scan --n "$n" --dtype "$dtype" --repeats 5 >>"$logs/ladder-scan.log" 2>&1
    done
done
echo "scan ladder checks: $(grep -c 'TEST PASS' "$logs/ladder-scan.log") TEST PASS," \
    "$(grep -c 'TEST FAIL' "$logs/ladder-scan.log") TEST FAIL"
build-gpu/programs/warpkit ladder --op scan --n 2^26 --dtype f64 --json "$out/ladder-scan-$tag.json" |
    tee "$logs/ladder-scan-2p26.log" | tail -n 9
