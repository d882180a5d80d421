#!/usr/bin/env python3
"""The soak's second half (Benchmarks/soak.sh): reads every CSV of the soak's report
folders for NaN, infinities and negative counts, then prints README.md's soak block
("Soak and invariants", between <!-- soak-table:begin --> and <!-- soak-table:end -->).

    soak_report.py WORK HEADER TIMES

WORK holds one report folder per soak run (all, adaptive, adaptive-small); TIMES is a
file with one line per run, `NAME<TAB>WALL_S<TAB>PEAK_KB<TAB>COMMAND`, as GNU time
measured it; HEADER the block's first paragraph (build, date, machine, load). The CSV
check reads the two large folders (all, adaptive), as the soak always has. Exits 1 when
a number is bad (after printing each), else prints the block on standard output and the
check's summary on standard error. Standard library only.
"""

from __future__ import annotations

import csv
import json
import math
import os
import sys

from docblock import cli

TEXT = {"scenario", "policy", "archetype", "platform", "baseline", "metric", "event", "detail", "utc_time",
        "excludes_zero", "unit", "interval_kind", "pooled", "unstable"}
SIGNED = ("difference", "ci_low", "ci_high")  # differences and interval bounds may be negative


def check_numbers(root: str) -> tuple[int, int]:
    """(numbers read, bad ones) over every CSV of one report folder."""
    cells = bad = 0
    for name in sorted(os.listdir(root)):
        if not name.endswith(".csv"):
            continue
        with open(os.path.join(root, name), newline="") as f:
            rows = csv.reader(f)
            header = next(rows)
            for line, row in enumerate(rows, start=2):
                record = dict(zip(header, row))  # long.csv: a row with a baseline holds a difference
                for column, value in record.items():
                    if column in TEXT or value == "" or value in ("true", "false"):
                        continue
                    cells += 1
                    x = float(value)
                    if not math.isfinite(x):
                        print(f"error: {root}/{name}:{line}: {column} is {value}", file=sys.stderr)
                        bad += 1
                    elif x < 0 and not (column.startswith(SIGNED) or column.endswith(SIGNED)
                                        or (column == "value" and record.get("baseline"))):
                        print(f"error: {root}/{name}:{line}: {column} is negative: {value}", file=sys.stderr)
                        bad += 1
    return cells, bad


def main(work: str, header: str, times: str) -> int:
    runs = []
    with open(times) as f:
        for line in f:
            name, seconds, kb, command = line.rstrip("\n").split("\t")
            run = json.load(open(os.path.join(work, name, "run.json")))
            runs.append((name, float(seconds), int(kb) // 1024, command, run))
    cells = bad = 0
    for folder in ("all", "adaptive"):
        c, b = check_numbers(os.path.join(work, folder))
        cells, bad = cells + c, bad + b
    print(f"{cells} numbers read: {bad} NaN, infinite or negative", file=sys.stderr)
    if bad:
        return 1
    pairs = sum(run["devices"] * len(run["policies"]) for *_, run in runs)
    device_days = sum(run["devices"] * run["days"] * len(run["policies"]) for *_, run in runs)
    lines = [header, "", "| command | wall s | peak MB |", "|---|---:|---:|"]
    lines += [f"| `{command}` | {seconds:.2f} | {mb} |" for _, seconds, mb, command, _ in runs]
    peak = {run["devices"]: mb for _, _, mb, _, run in runs if run["policies"] == ["adaptive"]}
    large, small = max(peak), min(peak)
    grows = peak[large] > 1.25 * peak[small]
    lines += [
        "",
        f"No identity broke on any of the {pairs:,} (policy, device) pairs ({device_days / 1e6:.1f} million "
        f"device-days), and the {cells:,} numbers of the two large runs' CSV files hold no NaN, infinity or "
        f"negative count. Memory {'grows with' if grows else 'is flat in'} the fleet: {peak[large]} MB for "
        f"{large:,} devices, {peak[small]} MB for {small:,}.",
    ]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    cli(main, "soak_report.py WORK HEADER TIMES")
