#!/usr/bin/env python3
"""Draws a bgbench report folder as PNG files (run by `bgbench plot DIR`).

frontier.png  fresh-open rate against background energy per device-day, with 95 %
              intervals on both axes, one point per policy (per point and policy for a
              sweep folder, the Pareto frontier joined by a line);
daily.png     the fresh-open rate by day, per policy, with its interval as a band
              (learning curves);
hourly.png    opens per device-day and fresh-open rate by hour of the day, per policy;
frontier-curves.png  (a `bgbench frontier` folder) each policy's fresh-open rate minus
              the baseline's against background energy, one curve per policy through its
              knob values, with the paired 95 % intervals of both differences.

Usage: plot.py DIR [--out OUTDIR]   (OUTDIR defaults to DIR)
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402


def frontier(summary, out):
    fleet = summary[summary["archetype"] == "all"]
    swept = [c for c in fleet.columns[: list(fleet.columns).index("scenario")]]
    fig, ax = plt.subplots(figsize=(7, 5))
    for policy, rows in fleet.groupby("policy", sort=False):
        x, y = rows["background_energy_j_per_day"], rows["fresh_open_rate"]
        xerr = [x - rows["background_energy_j_per_day_ci_low"], rows["background_energy_j_per_day_ci_high"] - x]
        yerr = [y - rows["fresh_open_rate_ci_low"], rows["fresh_open_rate_ci_high"] - y]
        ax.errorbar(x, y, xerr=xerr, yerr=yerr, fmt="o", capsize=3, label=policy)
        if swept:
            for _, r in rows.iterrows():
                ax.annotate(", ".join(str(r[c]) for c in swept), (r["background_energy_j_per_day"], r["fresh_open_rate"]),
                            fontsize=6, xytext=(3, 3), textcoords="offset points")
    if "pareto" in fleet.columns:
        front = fleet[fleet["pareto"]].sort_values("background_energy_j_per_day")
        ax.plot(front["background_energy_j_per_day"], front["fresh_open_rate"], "k--", lw=0.8, label="Pareto frontier")
    ax.set_xlabel("background energy (J per device-day)")
    ax.set_ylabel("fresh-open rate")
    ax.set_title("Freshness against energy (95 % intervals)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "frontier.png"), dpi=120)
    plt.close(fig)


def series(table, x, column, ax, label_suffix=""):
    for (policy, seed), rows in table.groupby(["policy", "seed"], sort=False):
        label = f"{policy}" if table["seed"].nunique() == 1 else f"{policy} (seed {seed})"
        ax.plot(rows[x], rows[column], label=label + label_suffix)
        low, high = column + "_ci_low", column + "_ci_high"
        if low in rows and high in rows:
            ax.fill_between(rows[x], rows[low], rows[high], alpha=0.2)


def daily(table, out):
    fig, ax = plt.subplots(figsize=(8, 4.5))
    series(table, "day", "fresh_open_rate", ax)
    ax.set_xlabel("day")
    ax.set_ylabel("fresh-open rate")
    ax.set_title("Learning curves: fresh-open rate by day (95 % band)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "daily.png"), dpi=120)
    plt.close(fig)


def hourly(table, out):
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    series(table, "hour", "opens_per_day", top)
    series(table, "hour", "fresh_open_rate", bottom)
    top.set_ylabel("opens per device-day")
    bottom.set_ylabel("fresh-open rate")
    bottom.set_xlabel("hour of day (device-local)")
    top.set_title("The diurnal picture")
    top.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "hourly.png"), dpi=120)
    plt.close(fig)


def frontier_curves(table, out):
    """frontier.csv: per policy, its arms' fresh-open difference from the baseline (points)
    against their J/day, joined in order of energy; the bars are the paired intervals
    (across seeds when the folder is replicated). Policies without a knob are single points.
    Left: every arm; right: up to twice the baseline's J/day, where most knobs lie."""
    interval = "seeds" if (table["interval"] == "seeds").any() else "devices"
    rows = table[table["interval"] == interval]
    if interval == "devices":
        rows = rows[rows["seed"] == rows["seed"].iloc[0]]
    baseline = rows["baseline"].iloc[0]
    base = rows[rows["arm"] == baseline].iloc[0]
    f, e = "fresh_open_rate", "background_energy_j_per_day"
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    policies = list(dict.fromkeys(rows["policy"]))
    # The zoom's height: the knob arms within its energies (a far single point is left out).
    near = rows[(rows[e] <= 2 * max(base[e], 1e-9)) & rows["knob"].notna()]
    low, high = near[f + "_difference_ci_low"].min() * 100, near[f + "_difference_ci_high"].max() * 100
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.5))
    for ax, zoom in zip(axes, (False, True)):
        for policy, arms in rows[rows["arm"] != baseline].groupby("policy", sort=False):
            arms = arms.sort_values(e)
            if zoom:
                arms = arms[arms[e] <= 2 * max(base[e], 1e-9)]
                if arms["knob"].isna().all():
                    arms = arms[(arms[f + "_difference"] * 100 >= low) & (arms[f + "_difference"] * 100 <= high)]
                if arms.empty:
                    continue
            x, y = arms[e], arms[f + "_difference"] * 100
            xerr = [(arms[e + "_difference"] - arms[e + "_difference_ci_low"]).clip(lower=0),
                    (arms[e + "_difference_ci_high"] - arms[e + "_difference"]).clip(lower=0)]
            yerr = [(y - arms[f + "_difference_ci_low"] * 100).clip(lower=0),
                    (arms[f + "_difference_ci_high"] * 100 - y).clip(lower=0)]
            ax.errorbar(x, y, xerr=xerr, yerr=yerr, fmt="o-" if len(arms) > 1 else "s", capsize=2, lw=1, ms=4,
                        label=policy, color=cycle[policies.index(policy) % len(cycle)])
        ax.axhline(0, color="grey", lw=0.6)
        ax.axvline(base[e], color="grey", lw=0.6, ls=":")
        ax.plot([base[e]], [0], "k*", ms=12, label=f"{baseline} (baseline point)")
        ax.set_xlabel("background energy (J per device-day)")
        ax.set_ylabel(f"fresh-open rate minus {baseline}'s (points)")
        ax.set_title(f"up to twice {baseline}'s J/day" if zoom else "every arm", fontsize=10)
        if zoom and low == low and high == high:
            margin = 0.1 * max(high - low, 0.1)
            ax.set_ylim(low - margin, high + margin)
    axes[0].legend(fontsize=7, ncol=2)
    fig.suptitle("Frontier: each policy over its knob, paired with the baseline (95 % intervals, "
                 + ("across seeds)" if interval == "seeds" else "device-clustered)"), fontsize=11)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "frontier-curves.png"), dpi=120)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description="Draw a bgbench report folder as PNG files.")
    parser.add_argument("folder")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    out = args.out or args.folder
    os.makedirs(out, exist_ok=True)
    written = []
    summary_path = os.path.join(args.folder, "summary.csv")
    if not os.path.exists(summary_path):
        sys.exit(f"error: no summary.csv in '{args.folder}': expected a bgbench report folder")
    frontier(pd.read_csv(summary_path), out)
    written.append("frontier.png")
    for name, draw in (("daily.csv", daily), ("hourly.csv", hourly), ("frontier.csv", frontier_curves)):
        path = os.path.join(args.folder, name)
        if os.path.exists(path):
            draw(pd.read_csv(path), out)
            written.append("frontier-curves.png" if name == "frontier.csv" else name.replace(".csv", ".png"))
    for name in written:
        print(os.path.join(out, name))


if __name__ == "__main__":
    main()
