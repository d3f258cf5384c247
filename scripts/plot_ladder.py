#!/usr/bin/env python3
"""Draws a ladder run (`warpkit ladder --json`) as a bar chart of each row's
bandwidth, with the measured read ceiling as a line.
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
    ceiling = r["ceilings"]["read_gbs"]
    ax.axhline(ceiling, color="grey", linestyle="--", linewidth=1)
    ax.text(len(rows) - 0.5, ceiling, f"read ceiling {ceiling:.0f} GB/s", ha="right", va="bottom", fontsize=8)
    ax.set(xlabel="kernel", ylabel="GB/s (input bytes / kernel time)",
           title=f"Reduction ladder on {r['device']}: n = {r['n']} {r['dtype']}, {r['threads']} threads "
                 f"(green: TEST PASS)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
