#!/usr/bin/env python3
"""Compares warpkit's times in two benchmark files (a results file,
bench/results/<GPU>.json, or the JSON of `warpkit bench --json`): the rows
both hold (same op, regime, dtype, n and, where present, segment size and
selectivity), each as the new time over the old. Prints how many rows are
within the tolerance or faster, then per op the smallest, median and largest
ratio below and from the split size (below it a call is bound by the host's
launch time, which moves more between two runs than the kernels do), and
the rows over the tolerance from the split size up. OLD and NEW may each be
several files, comma-separated (the runs of scripts/ab_bench.sh): a row's
time is then its fastest over them.

Usage: scripts/compare_bench.py OLD.json[,OLD2.json...] NEW.json[,NEW2.json...]
       [--tolerance 0.02] [--split 2^22]"""
import argparse
import json
import statistics


def size(text):
    """A size written as 4194304 or 2^22."""
    if "^" in text:
        base, exponent = text.split("^")
        return int(base) ** int(exponent)
    return int(text)


def key(row):
    return (row["op"], row.get("regime", "cold"), row["dtype"], row["n"], row.get("segment_size"),
            row.get("selectivity"))


def fastest(paths):
    """Each row's fastest warpkit time over the comma-separated files."""
    rows = {}
    for path in paths.split(","):
        for r in json.load(open(path))["bench"]:
            k = key(r)
            if r["warpkit_us"] > 0 and (k not in rows or r["warpkit_us"] < rows[k]):
                rows[k] = r["warpkit_us"]
    return rows


def spread(ratios):
    if not ratios:
        return "-"
    return f"{min(ratios):.3f} / {statistics.median(ratios):.3f} / {max(ratios):.3f} ({len(ratios)} rows)"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--tolerance", type=float, default=0.02, help="how much slower a row may be (0.02: 2 %%)")
    p.add_argument("--split", type=size, default=size("2^22"), help="the size from which rows are memory-bound")
    a = p.parse_args()

    old, new = fastest(a.old), fastest(a.new)
    pairs = [(k, old[k], t) for k, t in new.items() if k in old]
    within = sum(1 for _, t_old, t_new in pairs if t_new <= t_old * (1 + a.tolerance))
    print(f"{len(pairs)} rows in both; {within} within {100 * a.tolerance:g} % of the old time or faster")
    print("new time / old time, min / median / max:")
    for op in sorted({k[0] for k, _, _ in pairs}):
        below = [t_new / t_old for k, t_old, t_new in pairs if k[0] == op and k[3] < a.split]
        above = [t_new / t_old for k, t_old, t_new in pairs if k[0] == op and k[3] >= a.split]
        print(f"  {op:24s} below the split {spread(below)}; from it {spread(above)}")
    slow = [(k, t_old, t_new) for k, t_old, t_new in pairs
            if k[3] >= a.split and t_new > t_old * (1 + a.tolerance)]
    for (op, regime, dtype, n, segment, selectivity), t_old, t_new in slow:
        extra = "".join(f" {name}={v}" for name, v in (("segment", segment), ("keep", selectivity)) if v is not None)
        print(f"  over: {op} {regime} {dtype} n={n}{extra}: {t_old} -> {t_new} us ({t_new / t_old:.3f})")


if __name__ == "__main__":
    main()
