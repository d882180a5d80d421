#!/usr/bin/env python3
"""Fit a `schedule` plan from an opens trace's first weeks, write it as the plan CSV
(docs/policies.md, "schedule") and run it against `fixed` on the rest of the trace.

The plan is per device and per hour of the week: a device asks more often in the hours
it opened the app often during the fitting weeks, rarely in the others, and not at all
in hours it never opened it. Every device also gets a fleet-wide `*` row set (used by
devices without rows of their own). Only pandas and the bgbench package are used.

    python3 python/examples/fit_schedule.py                        # Datasets/traces/sample.csv, fit on week 1
    python3 python/examples/fit_schedule.py --trace habits.csv --fit-weeks 4 --frontier

The hour of the week is bgbench's: hours since the device's day 0 (a Monday, MODEL.md §2),
modulo 168, from the trace's timestamps in seconds; an ISO 8601 trace is moved to each
device's first day, as bgbench replays it. Devices are numbered in order of first
appearance in the trace, as bgbench numbers them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
try:
    import bgbench
except ImportError:  # run from the checkout without `pip install ./python`
    sys.path.insert(0, str(ROOT / "python" / "src"))
    import bgbench

WEEK_HOURS = 168


def trace_seconds(trace: pd.DataFrame) -> pd.Series:
    """Each open's time in seconds since its device's day 0, as bgbench replays it."""
    numeric = pd.to_numeric(trace["timestamp"], errors="coerce")
    if numeric.notna().all():
        return numeric
    # ISO 8601: the local wall clock (the offset dropped), from the device's first midnight.
    local = pd.to_datetime(trace["timestamp"].astype(str).str.slice(0, 19))
    first = local.groupby(trace["device"], sort=False).transform("min").dt.normalize()
    return (local - first).dt.total_seconds()


def fit_plan(
    trace: pd.DataFrame, fit_weeks: int, base_minutes: float = 60, least_minutes: float = 10, most_minutes: float = 240
) -> pd.DataFrame:
    """The plan: per device and hour of the week, an interval inversely proportional to the
    device's mean opens in that hour over the fitting weeks (`base_minutes` at one open an
    hour, clipped to [least, most] minutes, rounded to the minute), `off` where it never
    opened; plus `*` rows from the fleet's mean."""
    seconds = trace_seconds(trace)
    fit = trace.assign(seconds=seconds)[seconds < fit_weeks * WEEK_HOURS * 3600]
    index = {device: i for i, device in enumerate(trace["device"].drop_duplicates())}
    hours = (fit["seconds"] // 3600).astype(int) % WEEK_HOURS
    counts = (
        fit.assign(device=fit["device"].map(index), hour=hours)
        .groupby(["device", "hour"])
        .size()
        .unstack(fill_value=0)
        .reindex(index=range(len(index)), columns=range(WEEK_HOURS), fill_value=0)
    )
    rate = counts / fit_weeks  # opens per hour, by device and hour of the week

    def intervals(per_hour: pd.Series) -> pd.Series:
        minutes = (base_minutes / per_hour.where(per_hour > 0)).clip(least_minutes, most_minutes).round()
        return minutes.map(lambda m: "off" if pd.isna(m) else f"{int(m)}m")

    rows = [
        pd.DataFrame({"device": str(device), "hour_of_week": range(WEEK_HOURS), "interval": intervals(rate.loc[device]).values})
        for device in rate.index
    ]
    rows.append(pd.DataFrame({"device": "*", "hour_of_week": range(WEEK_HOURS), "interval": intervals(rate.mean()).values}))
    plan = pd.concat(rows, ignore_index=True)
    plan.insert(1, "platform", "*")
    plan.insert(2, "opens_per_day", "*")
    return plan


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trace", default=str(ROOT / "Datasets" / "traces" / "sample.csv"))
    parser.add_argument("--fit-weeks", type=int, default=1, help="weeks of the trace the plan is fitted on")
    parser.add_argument("--plan", default="plan.csv", help="where to write the plan CSV")
    parser.add_argument("--out", default=None, help="the report folder (default: a temporary one)")
    parser.add_argument("--frontier", action="store_true", help="run `bgbench frontier` (schedule over its scale knob)")
    parser.add_argument("--binary", default=None, help="the bgbench binary (default: BGBENCH_BINARY, then PATH)")
    args = parser.parse_args()

    trace = pd.read_csv(args.trace)
    plan = fit_plan(trace, args.fit_weeks)
    plan.to_csv(args.plan, index=False)
    asked = plan[plan["interval"] != "off"]
    print(f"wrote {args.plan}: {len(plan)} rows, {len(asked)} hours that ask, for {trace['device'].nunique()} devices")

    # Score only the weeks after the fit: they are the warm-up of the run.
    common = dict(
        policy="fixed,schedule",
        set={"policies.schedule.plan": str(Path(args.plan).resolve())},
        out=args.out,
        extra_args=["--opens-trace", args.trace, "--warmup-days", str(7 * args.fit_weeks)],
        binary=args.binary,
    )
    if args.frontier:
        report = bgbench.frontier(knob={"fixed": ["15m", "30m", "1h", "2h"], "schedule": ["0.5", "1", "2", "4"]}, **common)
        columns = ["arm", "fresh_open_rate", "fresh_open_rate_difference", "background_energy_j_per_day", "runs_per_day"]
        print(report.frontier[columns].to_string(index=False))
    else:
        report = bgbench.run(**common)
        fleet = report.summary[report.summary["archetype"] == "all"]
        print(fleet[["policy", "fresh_open_rate", "runs_per_day", "background_energy_j_per_day"]].to_string(index=False))
    print(f"report: {report.folder}")


if __name__ == "__main__":
    main()
