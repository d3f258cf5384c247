#!/usr/bin/env python3
"""Assembles bench/results/<GPU>.json from one GPU check: the commit it
measured, the device, the ceilings and rows of `warpkit bench --json` (every
row of every file given with --bench, in order: `--bench reduce.json --bench
scan.json --bench select.json` puts the reduce, scan and select rows in one
"bench" list), the CTest counts (the default run and the label large;
"seconds" is the default run's wall time) and the compute-sanitizer error
counts, and the reproducibility block the GPU test of the reproducible sum
printed into the default CTest log ("reproducibility: cases=N hash=H":
the hash of the bits of every case's result, the same on every GPU). Rows
keep every key the bench wrote: select rows carry
"selectivity" (the fraction of the input the case keeps) and "kept" beside
the common keys, segmented rows ("segreduce_sum", "segreduce_sum_repro",
"segscan_inclusive_sum") "segment_size" (0 for the case with offsets),
"cub_toolkit_us" and "cub_agree", and segreduce_sum_repro rows also
"plain_us" (the plain segmented sum of the same layout)."""
import argparse
import datetime
import glob
import json
import os
import re


def ctest_counts(path):
    """Counts CTest's per-test result lines ("1/9 Test #1: name ...   Passed")."""
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    for status in re.findall(r"Test\s+#\d+: \S+ \.*\s*\**\s*(\w+)", open(path).read()):
        key = {"Passed": "passed", "Skipped": "skipped"}.get(status, "failed")
        counts[key] += 1
    return counts


def test_counts(default_log, large_logs, seconds_file):
    """The "tests" object: passed, failed and skipped over the default run and
    the runs of the label large, and "seconds", the wall time of the default
    run (the sum of the lines gpu_check.sh wrote, one per ctest call; 0 when
    it was not recorded). The large runs are counted, not timed."""
    counts = ctest_counts(default_log)
    for path in large_logs:
        for key, value in ctest_counts(path).items():
            counts[key] += value
    seconds = 0.0
    if seconds_file and os.path.exists(seconds_file):
        seconds = sum(float(line) for line in open(seconds_file) if line.strip())
    counts["seconds"] = round(seconds, 1)
    return counts


def reproducibility(default_log):
    """{"cases", "hash"} from the GPU test's line, or None when it is absent;
    its cases passed only if the test did (the log says which failed)."""
    m = re.search(r"^(?:\d+: )?reproducibility: cases=(\d+) hash=([0-9a-f]+)$", open(default_log).read(), re.M)
    return {"cases": int(m.group(1)), "hash": m.group(2)} if m else None


def sanitizer_errors(log_dir, tool):
    """Errors compute-sanitizer reported for `tool` over all test programs;
    -1 if a log is missing its summary (the run did not finish)."""
    total = 0
    logs = glob.glob(os.path.join(log_dir, f"san_{tool}_*.log"))
    if not logs:
        return -1
    for path in logs:
        text = open(path).read()
        m = re.search(r"(?:ERROR|RACECHECK) SUMMARY: (\d+) (?:error|hazard)", text)
        if not m:
            return -1
        total += int(m.group(1))
    return total


def sanitized_tests(log_dir):
    """The test programs every sanitizer tool ran over, by their logs."""
    names = [set(re.findall(rf"san_{tool}_(\w+)\.log", " ".join(os.listdir(log_dir))))
             for tool in ("memcheck", "racecheck", "synccheck")]
    return sorted(set.intersection(*names))


def against(row, measured, kept):
    """Each bench run measures its own ceilings and reports its rows against
    them; the results file keeps the first run's. A row of a later run gets
    its pct_of_ceiling restated against the kept ceiling (the read ceiling
    for reduce_* and segreduce_* ops, the copy ceiling for the others: scan,
    select, partition and segscan), so that every row of the file reads
    against the ceilings the file shows."""
    key = "read_gbs" if row["op"].startswith(("reduce", "segreduce")) else "copy_gbs"
    if measured[key] != kept[key] and kept[key] > 0:
        row = dict(row, pct_of_ceiling=round(100.0 * row["gbs"] / kept[key], 1))
    return row


def verify_summary(path):
    """The families `warpkit verify --quick` ran (from its "== family: N
    cases" lines) and its closing count."""
    families, passed, failed = {}, None, None
    for line in open(path, errors="replace"):
        if m := re.match(r"== (.+): (\d+) cases$", line.strip()):
            families[m.group(1)] = int(m.group(2))
        elif m := re.match(r"(\d+) passed, (\d+) failed", line.strip()):
            passed, failed = int(m.group(1)), int(m.group(2))
    return {"passed": passed, "failed": failed, "cases": families}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--commit", required=True)
    p.add_argument("--ctest", required=True, help="log of the default ctest run")
    p.add_argument("--ctest-large", action="append", default=[],
                   help="log of a `ctest -L large` run, counted in tests; repeat for more than one")
    p.add_argument("--ctest-seconds",
                   help="wall seconds of the default ctest run, one line per call (summed)")
    p.add_argument("--sanitizer-dir", required=True)
    p.add_argument("--bench", required=True, action="append",
                   help="JSON of `warpkit bench`; repeat for more than one run (e.g. --op scan, --op select, "
                        "--op segmented)")
    p.add_argument("--verify", help="output of `warpkit verify --quick`")
    p.add_argument("--out", required=True)
    a = p.parse_args()

    runs = [json.load(open(path)) for path in a.bench]
    result = {
        "commit": a.commit,
        "device": runs[0]["device"],
        "date": datetime.date.today().isoformat(),
        "ceilings": runs[0]["ceilings"],
        **({"cub_latest_version": v} if (v := next((r["cub_latest_version"] for r in runs
                                                  if "cub_latest_version" in r), None)) else {}),
        "tests": test_counts(a.ctest, a.ctest_large, a.ctest_seconds),
        "sanitizer": {**{f"{t}_errors": sanitizer_errors(a.sanitizer_dir, t)
                         for t in ("memcheck", "racecheck", "synccheck")},
                      "tests": sanitized_tests(a.sanitizer_dir)},
        **({"reproducibility": r} if (r := reproducibility(a.ctest)) else {}),
        **({"verify_quick": verify_summary(a.verify)} if a.verify else {}),
        "bench": [against(row, run["ceilings"], runs[0]["ceilings"]) for run in runs for row in run["bench"]],
    }
    with open(a.out, "w") as f:
        f.write(format_results(result))


def format_results(result):
    """JSON with one benchmark row per line, so that diffs between runs read
    row by row."""
    rows = result.pop("bench")
    head = json.dumps(result, indent=1)[:-2]  # drop the closing brace
    body = ",\n".join("  " + json.dumps(r) for r in rows)
    result["bench"] = rows
    return head + ',\n "bench": [\n' + body + "\n ]\n}\n"


if __name__ == "__main__":
    main()
