#!/usr/bin/env python3
"""Prints a results file (bench/results/<GPU>.json) as Markdown: the run's
header, then one table per op with a column per dtype (per dtype and
selectivity for the select and partition ops, whose rows carry the fraction
of the input they keep), each cell "warpkit µs / CUB µs, speedup over CUB,
percent of ceiling": the read ceiling for reduce_* ops, the copy ceiling for
the others (a scan reads n and writes n, a select reads n and writes what it
keeps). The segmented ops (segreduce_*, against the read ceiling, and
segscan_*) get a table each with a line per size and segment size;
segreduce_sum_repro's also has warpkit's plain segmented sum (plain_us) and
its time over the reproducible one's. Usage:
scripts/results_table.py bench/results/H100.json"""
import json
import sys


def ceiling_of(op):
    """The ceiling an op's bandwidth is measured against (GUIDE section 5)."""
    return "read" if op.startswith(("reduce", "segreduce")) else "copy"


def power_label(n):
    """2^k for a power of two, else the number."""
    exponent = n.bit_length() - 1
    return f"2^{exponent}" if n > 0 and n == 1 << exponent else str(n)


def print_segmented(op, rows):
    """A segmented op: a line per total size and segment size (0: the
    power-law offsets), with warpkit's time, the fastest CUB form's (cub_us;
    0 where no CUB form ran), the newest CUB's, the speedup over the fastest,
    the bandwidth and the percent of the ceiling; where the rows have
    plain_us (segreduce_sum_repro), warpkit's plain segmented sum and
    plain_us / warpkit_us."""
    plain = all("plain_us" in row for row in rows)
    print(f"\n**{op}** (f32): µs per call; CUB = the fastest CUB form (toolkit or newest), "
          f"speedup = CUB µs / warpkit µs; "
          + ("plain = warpkit's plain segmented sum, vs plain = plain µs / warpkit µs; " if plain else "")
          + f"% of the {ceiling_of(op)} ceiling\n")
    print("| n | segment size | warpkit µs | CUB µs | CUB latest µs | speedup |"
          + (" plain µs | vs plain |" if plain else "") + " GB/s | % of ceiling | check |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |" + (" --- | --- |" if plain else ""))
    # Uniform sizes rising, the offsets case last, for each total size.
    for row in sorted(rows, key=lambda row: (row["n"], row["segment_size"] == 0, row["segment_size"])):
        s = row["segment_size"]
        size = "offsets (power law)" if s == 0 else str(s) if s < 1024 else power_label(s)
        has_cub = row.get("cub_us", 0) > 0
        cub = f"{row['cub_us']:.2f}" if has_cub else "-"
        latest = f"{row['cub_latest_us']:.2f}" if row.get("cub_latest_us", -1) > 0 else "-"
        speedup = f"x{row['speedup']:.2f}" if has_cub and row.get("speedup", 0) > 0 else "-"
        check = ("ok" if row.get("agree", True) else "WRONG") + \
            ("" if row.get("cub_agree", True) else ", CUB differs")
        vs_plain = f" {row['plain_us']:.2f} | {row['plain_us'] / row['warpkit_us']:.2f} |" if plain else ""
        print(f"| {power_label(row['n'])} | {size} | {row['warpkit_us']:.2f} | {cub} | {latest} | {speedup} |"
              f"{vs_plain} {row['gbs']:.1f} | {row['pct_of_ceiling']:.1f} % | {check} |")


def column_of(row):
    """A table column: the dtype, and the selectivity where the row has one
    ("f32", "f32 keep 1 %")."""
    if "selectivity" not in row:
        return row["dtype"]
    return f"{row['dtype']} keep {100 * row['selectivity']:g} %"


def main(path):
    r = json.load(open(path))
    print(f"Device {r['device']}, commit `{r['commit'][:12]}`, {r['date']}: "
          f"read ceiling {r['ceilings']['read_gbs']} GB/s, copy ceiling {r['ceilings']['copy_gbs']} GB/s; "
          + (f"tests {r['tests']['passed']} passed, {r['tests']['failed']} failed, {r['tests']['skipped']} skipped; "
             if "tests" in r else "no tests in this file; ")
          + (f"sanitizer errors: memcheck {r['sanitizer']['memcheck_errors']}, "
             f"racecheck {r['sanitizer']['racecheck_errors']}, synccheck {r['sanitizer']['synccheck_errors']}."
             if "sanitizer" in r else "no sanitizer run in this file."))
    # The cold rows (inputs never in L2); the warm and graph regimes, where
    # present, are tabled apart (docs/results.md).
    cold = [row for row in r["bench"] if row.get("regime", "cold") == "cold"]
    ops = list(dict.fromkeys(row["op"] for row in cold))
    for op in ops:
        rows = [row for row in cold if row["op"] == op]
        if "segment_size" in rows[0]:
            print_segmented(op, rows)
            continue
        # Dtype by dtype, each at its selectivities in rising order.
        dtypes = list(dict.fromkeys(row["dtype"] for row in rows))
        ordered = sorted(rows, key=lambda row: (dtypes.index(row["dtype"]), row.get("selectivity", 0)))
        columns = list(dict.fromkeys(column_of(row) for row in ordered))
        sizes = sorted({row["n"] for row in rows})
        cell = {(row["n"], column_of(row)): row for row in rows}
        print(f"\n**{op}**: warpkit µs / CUB µs, speedup, % of the {ceiling_of(op)} ceiling\n")
        print("| n | " + " | ".join(columns) + " |")
        print("| --- |" + " --- |" * len(columns))
        for n in sizes:
            cells = []
            for d in columns:
                c = cell.get((n, d))
                cells.append("" if c is None else
                             f"{c['warpkit_us']:.2f} / {c['cub_us']:.2f}, x{c['speedup']:.2f}, {c['pct_of_ceiling']:.1f} %")
            exponent = n.bit_length() - 1
            label = f"2^{exponent}" if n == 1 << exponent else str(n)
            print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
