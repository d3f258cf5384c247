#!/usr/bin/env python3
"""Assembles bench/results/<GPU>x<N>.json from one multi-GPU check
(scripts/gpu_check_dist.sh): the commit it measured, the device and GPU
count, the CTest counts of the default run on that machine (test_dist runs
there with one process per GPU), the compute-sanitizer error counts, and the
rows of `warpkit-dist bench --json`."""
import argparse
import datetime
import json

from make_results import format_results, sanitizer_errors, test_counts


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--commit", required=True)
    p.add_argument("--ctest", required=True, help="log of the default ctest run")
    p.add_argument("--ctest-seconds", help="wall seconds of the default ctest run")
    p.add_argument("--sanitizer-dir", required=True)
    p.add_argument("--bench", required=True, help="JSON of `warpkit-dist bench`")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    run = json.load(open(a.bench))
    result = {
        "commit": a.commit,
        "device": run["device"],
        "gpus": run["gpus"],
        "nccl_version": run["nccl_version"],
        "date": datetime.date.today().isoformat(),
        "tests": dict(test_counts(a.ctest, [], a.ctest_seconds),
                      sanitizer={f"{t}_errors": sanitizer_errors(a.sanitizer_dir, t)
                                 for t in ("memcheck", "racecheck", "synccheck")}),
        "bench": run["bench"],
    }
    with open(a.out, "w") as f:
        f.write(format_results(result))


if __name__ == "__main__":
    main()
