#!/usr/bin/env python3
"""Draws a results file (bench/results/<GPU>.json) as two panels per op:
speedup over CUB, and bandwidth as a percent of the measured ceiling, each
against n. Usage: scripts/plot_bench.py RESULTS.json OUTPUT.png"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)


def main(path, out):
    r = json.load(open(path))
    series = {}
    for row in r["bench"]:
        series.setdefault(f"{row['op']} {row['dtype']}", []).append(row)
    fig, (speed, pct) = plt.subplots(1, 2, figsize=(12, 4.5))
    for label, rows in series.items():
        rows.sort(key=lambda row: row["n"])
        ns = [row["n"] for row in rows]
        speed.plot(ns, [row["speedup"] for row in rows], marker="o", label=label)
        pct.plot(ns, [row["pct_of_ceiling"] for row in rows], marker="o", label=label)
    speed.axhline(1.0, color="grey", linewidth=0.8)
    speed.set(xscale="log", xlabel="n (elements)", ylabel="speedup over CUB (CUB time / warpkit time)")
    pct.set(xscale="log", xlabel="n (elements)", ylabel="% of the read ceiling", ylim=(0, 105))
    speed.legend(fontsize=8)
    fig.suptitle(f"warpkit reduce on {r['device']} (commit {r['commit'][:12]}, "
                 f"read ceiling {r['ceilings']['read_gbs']:.0f} GB/s)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
