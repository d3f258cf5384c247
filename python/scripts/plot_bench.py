#!/usr/bin/env python3
"""Plot the Python benchmark (python -m warpkit.bench --json FILE).

    python python/scripts/plot_bench.py FILE [-o out.png]

One panel per op: time per call (us) against n, log-log, one line per
(library, input); a second axis row gives library time / warpkit time.
"""

import argparse
import json
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("json")
    p.add_argument("-o", "--out", default=None, help="image file (default: FILE with .png)")
    args = p.parse_args()
    data = json.load(open(args.json))
    rows = data["bench"]
    ops = [op for op in ["sum", "cumsum", "argmax", "compact", "compact_nosync"] if any(r["op"] == op for r in rows)]
    series = defaultdict(dict)  # (op, lib, input) -> {n: us}
    for r in rows:
        series[(r["op"], r["lib"], r["input"])][r["n"]] = r["us"]
    fig, axes = plt.subplots(2, len(ops), figsize=(4.2 * len(ops), 6.5), squeeze=False,
                             gridspec_kw={"height_ratios": [2, 1]}, sharex=True)
    styles = {"warpkit": "-", "torch": "--", "cupy": ":"}
    colors = {("warpkit", "torch"): "C0", ("torch", "torch"): "C1", ("warpkit", "cupy"): "C2",
              ("cupy", "cupy"): "C3"}
    for j, op in enumerate(ops):
        ax, rax = axes[0][j], axes[1][j]
        for (o, lib, inp), pts in sorted(series.items()):
            if o != op:
                continue
            ns = sorted(pts)
            ax.plot(ns, [pts[n] for n in ns], styles.get(lib, "-"), marker="o", ms=3, color=colors.get((lib, inp)),
                    label="%s (%s input)" % (lib, inp) if lib == "warpkit" else lib)
            if lib != "warpkit" and (op, "warpkit", inp) in series:
                wk = series[(op, "warpkit", inp)]
                common = [n for n in ns if n in wk]
                rax.plot(common, [pts[n] / wk[n] for n in common], styles.get(lib, "-"), marker="o", ms=3,
                         color=colors.get((lib, inp)),
                         label="%s / warpkit" % lib)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(op)
        ax.grid(True, which="both", alpha=0.3)
        rax.axhline(1.0, color="gray", lw=0.8)
        rax.axhline(1.2, color="gray", lw=0.6, ls=":")
        rax.set_xscale("log", base=2)
        rax.set_xlabel("elements (float32)")
        rax.grid(True, alpha=0.3)
        if j == 0:
            ax.set_ylabel("us per call")
            rax.set_ylabel("speedup")
        ax.legend(fontsize=7)
        if rax.get_legend_handles_labels()[0]:
            rax.legend(fontsize=7)
    fig.suptitle("warpkit Python vs PyTorch / CuPy on %s (commit %s, %s)" % (
        data.get("device"), str(data.get("commit"))[:10], data.get("date")), fontsize=10)
    fig.tight_layout()
    out = args.out or args.json.rsplit(".", 1)[0] + ".png"
    fig.savefig(out, dpi=130)
    print("wrote", out)


if __name__ == "__main__":
    main()
