#!/usr/bin/env python3
"""Prints the summaries of docs/results.md from a results file
(bench/results/<GPU>.json) as Markdown. Every ratio is against the faster
CUB of a row: the smallest of cub_us (the toolkit's CUB; for segmented rows
already the faster of its forms), cub_latest_us (the newest CUB) and
cub_toolkit_us, where present and above 0; speedup = that time / warpkit_us.
Rows whose CUB answer differs from warpkit's ("cub_agree": false) are left
out of the speedup ranges and named under the table.

Sections (--sections, comma-separated; default all):
  families   per op family (--regimes: which regimes, default all), the speedup's range by size band (up to 2^18,
             2^20 to 2^22, from 2^24) and regime, and the percent of the
             ceiling (read for reduce_*, copy for the others) at 2^28 to 2^30,
             cold
  repro      reduce_sum_repro per size: cold µs, against CUB (its gpu_to_gpu
             sum) and against warpkit's plain sum (plain_us / warpkit_us);
             then the plain-sum ratio per size in the warm and graph regimes
  segmented  segreduce_* and segscan_* at one size (--segmented-n, default
             2^28) per segment size; for segreduce_sum_repro also warpkit's
             plain segmented sum and its time over the reproducible one's
             (plain_us / warpkit_us)
  behind     every row whose speedup is below 1.0, grouped by op and regime;
             not segreduce_sum_repro, whose CUB is a plain (not
             reproducible) segmented sum

Usage: scripts/results_summary.py bench/results/H200.json [--sections families,behind]"""
import argparse
import json

BANDS = [("up to 2^18", 0, 1 << 18), ("2^20 to 2^22", 1 << 20, 1 << 22), ("from 2^24", 1 << 24, 1 << 62)]
REGIMES = ["cold", "warm", "graph"]

# (family title, [(row label, predicate)]): the groups of rows summed up.
FAMILIES = [
    ("Reduce", [
        ("sum f32", lambda r: r["op"] == "reduce_sum" and r["dtype"] == "f32" and "out_dtype" not in r),
        ("sum f64", lambda r: r["op"] == "reduce_sum" and r["dtype"] == "f64" and "out_dtype" not in r),
        ("sum i32", lambda r: r["op"] == "reduce_sum" and r["dtype"] == "i32" and "out_dtype" not in r),
        ("min f32", lambda r: r["op"] == "reduce_min"),
        ("argmax f32", lambda r: r["op"] == "reduce_argmax"),
    ]),
    ("Sums into a wider dtype (against CUB's sum with that output)", [
        (f"sum {dt} into {out}", (lambda dt, out: lambda r: r["op"] == "reduce_sum" and r["dtype"] == dt
                                   and r.get("out_dtype") == out)(dt, out))
        for dt, out in (("u8", "i64"), ("bool", "i64"), ("i32", "i64"), ("bf16", "f32"))
    ]),
    ("Reproducible sum (against CUB's gpu_to_gpu sum)", [
        ("f32", lambda r: r["op"] == "reduce_sum_repro" and r["dtype"] == "f32"),
        ("f64", lambda r: r["op"] == "reduce_sum_repro" and r["dtype"] == "f64"),
    ]),
    ("Scans", [
        (f"{name}, {label}", (lambda op, dts: lambda r: r["op"] == op and r["dtype"] in dts
                              and "out_dtype" not in r)(op, dts))
        for op, name in (("scan_inclusive_sum", "inclusive sum"), ("scan_exclusive_sum", "exclusive sum"),
                         ("scan_inclusive_max", "inclusive max"))
        for label, dts in (("f32 / i32", ("f32", "i32")), ("f64 / i64", ("f64", "i64")))
    ] + [("inclusive sum, bool into i64",
          lambda r: r["op"] == "scan_inclusive_sum" and r["dtype"] == "bool" and r.get("out_dtype") == "i64")]),
    ("Selects and partition (f32 and i32, 1 %, 50 % and 99 % kept)", [
        (name, (lambda op: lambda r: r["op"] == op)(op))
        for op, name in (("select_if", "select_if"), ("select_flagged", "select_flagged"),
                         ("select_unique", "select_unique"), ("partition_if", "partition_if"))
    ]),
]


def faster_cub(row):
    times = [row[k] for k in ("cub_us", "cub_latest_us", "cub_toolkit_us") if row.get(k, 0) > 0]
    return min(times) if times else 0.0


def speedup(row):
    cub = faster_cub(row)
    return cub / row["warpkit_us"] if cub > 0 else None


def power(n):
    e = n.bit_length() - 1
    return f"2^{e}" if n == 1 << e else str(n)


def span(values, digits):
    if not values:
        return "-"
    lo, hi = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return lo if lo == hi else f"{lo}-{hi}"


def ceiling_of(op):
    return "read" if op.startswith(("reduce", "segreduce")) else "copy"


def families(rows, regimes):
    for title, groups in FAMILIES:
        wrong = []
        present = [(label, pred) for label, pred in groups if any(pred(r) for r in rows)]
        if not present:
            continue
        ceiling = ceiling_of(next(r["op"] for r in rows if present[0][1](r)))
        upto = " (warm and graph: up to 2^24)" if set(regimes) - {"cold"} else ""
        print(f"\n**{title}**: speedup over the faster CUB{upto}; % of the {ceiling} ceiling, cold\n")
        print("| rows | regime | " + " | ".join(b[0] for b in BANDS) + " | % of ceiling, 2^28 to 2^30 |")
        print("| --- | --- |" + " --- |" * (len(BANDS) + 1))
        for label, pred in present:
            for regime in regimes:
                group = [r for r in rows if pred(r) and r.get("regime", "cold") == regime]
                if not group:
                    continue
                wrong += [r for r in group if not r.get("cub_agree", True)]
                ok = [r for r in group if r.get("cub_agree", True) and speedup(r) is not None]
                cells = [span([speedup(r) for r in ok if lo <= r["n"] <= hi], 2) for _, lo, hi in BANDS]
                pct = span([r["pct_of_ceiling"] for r in group if 1 << 28 <= r["n"] <= 1 << 30], 1) \
                    if regime == "cold" else "-"
                print(f"| {label} | {regime} | " + " | ".join(cells) + f" | {pct} |")
        for r in wrong:
            print(f"\nLeft out of the ranges: {r['op']}, {r.get('regime', 'cold')}, {r['dtype']} at {power(r['n'])}, "
                  f"whose CUB answer differs from warpkit's (`\"cub_agree\": false`; speedup {speedup(r):.2f}).")


def repro(rows):
    rr = [r for r in rows if r["op"] == "reduce_sum_repro"]
    if not rr:
        return
    cell = {(r.get("regime", "cold"), r["dtype"], r["n"]): r for r in rr}
    print("\n**reduce_sum_repro**, cold: warpkit µs, speedup over CUB's gpu_to_gpu sum, "
          "and the plain sum's time over the reproducible one's (plain_us / warpkit_us)\n")
    print("| n | f32 µs | vs CUB | vs plain | f64 µs | vs CUB | vs plain |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for n in sorted({k[2] for k in cell if k[0] == "cold"}):
        cells = []
        for dt in ("f32", "f64"):
            r = cell.get(("cold", dt, n))
            if r is None:
                cells += ["", "", ""]
                continue
            s = f"{speedup(r):.2f}"
            if not r.get("cub_agree", True):
                s = f"({s})"
            cells += [f"{r['warpkit_us']:.2f}", s, f"{r['plain_us'] / r['warpkit_us']:.2f}"]
        print(f"| {power(n)} | " + " | ".join(cells) + " |")
    others = [g for g in REGIMES[1:] if any(k[0] == g for k in cell)]
    if not others:
        return
    print("\n**reduce_sum_repro**, the plain sum's time over the reproducible one's "
          "(plain_us / warpkit_us), warm and graph\n")
    heads = [f"{g} {dt}" for g in others for dt in ("f32", "f64")]
    print("| n | " + " | ".join(heads) + " |")
    print("| --- |" + " --- |" * len(heads))
    for n in sorted({k[2] for k in cell if k[0] in others}):
        cells = []
        for g in others:
            for dt in ("f32", "f64"):
                r = cell.get((g, dt, n))
                cells.append("" if r is None else f"{r['plain_us'] / r['warpkit_us']:.2f}")
        print(f"| {power(n)} | " + " | ".join(cells) + " |")


def segmented(rows, n):
    for op in dict.fromkeys(r["op"] for r in rows if "segment_size" in r):
        group = sorted((r for r in rows if r["op"] == op and r["n"] == n),
                       key=lambda r: (r["segment_size"] == 0, r["segment_size"]))
        if not group:
            continue
        # The reproducible sum's rows also carry warpkit's plain sum of the layout.
        plain = all("plain_us" in r for r in group)
        print(f"\n**{op}** ({group[0]['dtype']}, n = {power(n)}, {group[0].get('regime', 'cold')}): "
              f"% of the {ceiling_of(op)} ceiling" + ("; vs plain = plain_us / warpkit_us" if plain else "") + "\n")
        print("| segment size | warpkit µs | faster CUB µs | speedup |" + (" plain µs | vs plain |" if plain else "")
              + " % of ceiling |")
        print("| --- | --- | --- | --- | --- |" + (" --- | --- |" if plain else ""))
        for r in group:
            s = r["segment_size"]
            size = "power-law offsets" if s == 0 else str(s) if s < 1024 else power(s)
            vs_plain = f" {r['plain_us']:.2f} | {r['plain_us'] / r['warpkit_us']:.2f} |" if plain else ""
            print(f"| {size} | {r['warpkit_us']:.2f} | {faster_cub(r):.2f} | {speedup(r):.2f} |{vs_plain} "
                  f"{r['pct_of_ceiling']:.1f} |")


def ratio_text(x):
    """Three decimals; four where three would print 1.000 for a row below 1."""
    text = f"{x:.3f}"
    return f"{x:.4f}" if text == "1.000" else text


# Ops whose CUB column is not the same computation: the reproducible segmented
# sum beside CUB's plain one. Left out of `behind`.
NOT_LIKE_FOR_LIKE = ("segreduce_sum_repro",)


def behind(rows):
    unlike = sum(1 for r in rows if r["op"] in NOT_LIKE_FOR_LIKE)
    rows = [r for r in rows if r["op"] not in NOT_LIKE_FOR_LIKE]
    slow = [r for r in rows if speedup(r) is not None and speedup(r) < 1.0 and r.get("cub_agree", True)]
    note = f"; {unlike} segreduce_sum_repro rows left out, their CUB being a plain segmented sum" if unlike else ""
    print(f"\n{len(slow)} of {len(rows)} rows are behind the faster CUB "
          f"(speedup; the row's size, then its dtype, keep or segment size{note}):\n")
    for op in dict.fromkeys(r["op"] for r in rows):
        for regime in REGIMES:
            group = [r for r in slow if r["op"] == op and r.get("regime", "cold") == regime]
            if not group:
                continue
            parts = []
            order = ["f32", "i32", "f64", "i64"]
            for dt in sorted({r["dtype"] for r in group}, key=lambda d: order.index(d) if d in order else 9):
                items = []
                for r in sorted((r for r in group if r["dtype"] == dt),
                                key=lambda r: (r["n"], r.get("segment_size", 0), r.get("selectivity", 0))):
                    extra = ""
                    if "segment_size" in r:
                        s = r["segment_size"]
                        extra = " (power-law offsets)" if s == 0 else f" (segments of {power(s)})"
                    if "selectivity" in r:
                        extra = f" (keep {100 * r['selectivity']:g} %)"
                    items.append(f"{power(r['n'])}{extra} {ratio_text(speedup(r))}")
                parts.append(f"{dt} " + ", ".join(items))
            print(f"- {op}, {regime}: " + "; ".join(parts))
    toolkit = sum(1 for r in slow if r.get("cub_latest_us", 0) <= 0
                  or min(r.get("cub_toolkit_us", r["cub_us"]), r["cub_us"]) < r["cub_latest_us"])
    print(f"\nThe faster CUB in these rows: the toolkit's in {toolkit}, the newest in {len(slow) - toolkit}.")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("results")
    p.add_argument("--sections", default="families,repro,segmented,behind")
    p.add_argument("--regimes", default="cold,warm,graph", help="the regimes of the families' tables")
    p.add_argument("--segmented-n", type=lambda t: 2 ** int(t[2:]) if t.startswith("2^") else int(t),
                   default=1 << 28)
    a = p.parse_args()
    r = json.load(open(a.results))
    rows = r["bench"]
    print(f"{r['device']}, commit `{r['commit'][:12]}`, {r['date']}: {len(rows)} rows; "
          f"read ceiling {r['ceilings']['read_gbs']} GB/s, copy ceiling {r['ceilings']['copy_gbs']} GB/s.")
    for section in a.sections.split(","):
        if section == "families":
            families(rows, a.regimes.split(","))
        elif section == "repro":
            repro(rows)
        elif section == "segmented":
            segmented(rows, a.segmented_n)
        elif section == "behind":
            behind(rows)
        else:
            raise SystemExit(f"unknown section {section}")


if __name__ == "__main__":
    main()
