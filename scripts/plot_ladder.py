#!/usr/bin/env python3
"""Draws a ladder run (`warpkit ladder --json`) as a bar chart of each row's
bandwidth, with the measured ceiling as a line: the read ceiling for the
reduction ladder, the copy ceiling for the scan ladder (`--op scan`, whose
JSON says "op": "scan").
Usage: scripts/plot_ladder.py LADDER.json OUTPUT.png"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)


def main(path, out):
    r = json.load(open(path))
    rows = r["rows"]
    labels = [row["id"] for row in rows]
    gbs = [row["gbs"] for row in rows]
    colors = ["tab:green" if row["pass"] else "tab:red" for row in rows]
    fig, ax = plt.subplots(figsize=(11, 4.8))
    bars = ax.bar(labels, gbs, color=colors)
    for bar, row in zip(bars, rows):
        ax.annotate(f"{row['pct_of_ceiling']:.0f} %", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    ha="center", va="bottom", fontsize=8)
    scan = r.get("op", "reduce") == "scan"
    kind = "copy" if scan else "read"
    ceiling = r["ceilings"][f"{kind}_gbs"]
    ax.axhline(ceiling, color="grey", linestyle="--", linewidth=1)
    ax.text(len(rows) - 0.5, ceiling, f"{kind} ceiling {ceiling:.0f} GB/s", ha="right", va="bottom", fontsize=8)
    ax.set(xlabel="kernel", ylabel="GB/s (bytes read and written / kernel time)" if scan
           else "GB/s (input bytes / kernel time)",
           title=f"{'Scan' if scan else 'Reduction'} ladder on {r['device']}: n = {r['n']} {r['dtype']}, "
                 f"{r['threads']} threads (green: TEST PASS)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
