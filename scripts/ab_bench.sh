#!/usr/bin/env bash
# Two builds of warpkit timed on one machine, their benchmark runs
# alternating (A B A B ...), so that a difference between them is not the
# difference between two machines or two moments. Compares each row's
# fastest time over the runs with scripts/compare_bench.py.
#
# Usage: scripts/ab_bench.sh BUILD_A BUILD_B OUTPUT_DIR [ROUNDS] -- [warpkit bench options]
#   e.g. scripts/ab_bench.sh build-old build-gpu ab 3 -- --op segmented --n 2^28 --repeats 15
# BUILD_A and BUILD_B are CMake build folders holding programs/warpkit (an
# older commit can be built from `git archive <commit>` unpacked beside the
# checkout). Writes OUTPUT_DIR/a-<i>.json and b-<i>.json.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { sed -n '2,12p' "$0"; exit 2; }
a=$1 b=$2 out=$3
shift 3
rounds=3
if [ $# -gt 0 ] && [ "$1" != -- ]; then rounds=$1; shift; fi
[ "${1:-}" = -- ] && shift
mkdir -p "$out"
for build in "$a" "$b"; do
    [ -x "$build/programs/warpkit" ] || { echo "no $build/programs/warpkit" >&2; exit 2; }
done
olds=() news=()
for i in $(seq 1 "$rounds"); do
    "$a/programs/warpkit" bench "$@" --json "$out/a-$i.json" >"$out/a-$i.log" 2>&1
    "$b/programs/warpkit" bench "$@" --json "$out/b-$i.json" >"$out/b-$i.log" 2>&1
    olds+=("$out/a-$i.json") news+=("$out/b-$i.json")
    echo "round $i of $rounds done"
done
python3 scripts/compare_bench.py "$(IFS=,; echo "${olds[*]}")" "$(IFS=,; echo "${news[*]}")"
