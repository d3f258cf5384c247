#!/usr/bin/env python3
"""Draws a results file (bench/results/<GPU>.json) as two panels per family
of ops (reduce_*, scan_*, and select_* with partition_if once per
selectivity): speedup over CUB, and bandwidth as a percent of the measured
ceiling (the read ceiling for a reduce, the copy ceiling for a scan or a
select), each against n. Usage: scripts/plot_bench.py RESULTS.json OUTPUT.png"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)


def family(row):
    """"reduce_sum" -> "reduce", "scan_inclusive_sum" -> "scan"; the select
    ops and partition_if, which move the same kind of bytes, share a family
    per selectivity ("select, keep 1 %"), so that a panel holds eight series,
    not twenty-four."""
    op = row["op"]
    fam = "select" if op.startswith("partition") else op.split("_", 1)[0]
    if "selectivity" in row:
        fam += f", keep {100 * row['selectivity']:g} %"
    return fam


def ceiling_of(fam):
    return "read" if fam.startswith("reduce") else "copy"


def main(path, out):
    r = json.load(open(path))
    families = {}
    for row in r["bench"]:
        if row.get("regime", "cold") != "cold":  # the plot shows the cold rows
            continue
        if "segment_size" in row:  # segmented rows go by segment size, in the tables
            continue
        series = families.setdefault(family(row), {})
        series.setdefault(f"{row['op']} {row['dtype']}", []).append(row)
    fig, axes = plt.subplots(len(families), 2, figsize=(12, 4.5 * len(families)), squeeze=False)
    # Within a family, a colour per dtype and a line style per op, so that
    # a dozen series stay apart.
    colours = {}
    styles = {}
    for (fam, series), (speed, pct) in zip(families.items(), axes):
        for label, rows in series.items():
            rows.sort(key=lambda row: row["n"])
            ns = [row["n"] for row in rows]
            op, dtype = label.split(" ")
            look = dict(marker="o", label=label,
                        color=colours.setdefault(dtype, f"C{len(colours)}"),
                        linestyle=styles.setdefault(op, ["-", "--", ":", "-."][len(styles) % 4]))
            speed.plot(ns, [row["speedup"] for row in rows], **look)
            pct.plot(ns, [row["pct_of_ceiling"] for row in rows], **look)
        styles.clear()
        speed.axhline(1.0, color="grey", linewidth=0.8)
        speed.set(xscale="log", xlabel="n (elements)", ylabel="speedup over CUB (CUB time / warpkit time)",
                  title=f"{fam}: speedup over CUB")
        pct.set(xscale="log", xlabel="n (elements)", ylabel=f"% of the {ceiling_of(fam)} ceiling", ylim=(0, 105),
                title=f"{fam}: bandwidth")
        speed.legend(fontsize=8)
    c = r["ceilings"]
    fig.suptitle(f"warpkit on {r['device']} (commit {r['commit'][:12]}, "
                 f"read ceiling {c['read_gbs']:.0f} GB/s, copy ceiling {c['copy_gbs']:.0f} GB/s)")
    # Leave the suptitle its own band above the first row of panels.
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.25 / fig.get_size_inches()[1]))
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
