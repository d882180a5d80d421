#!/usr/bin/env python3
"""Draws a bgbench report folder as PNG files (run by `bgbench plot DIR`).

frontier.png  fresh-open rate against background energy per device-day, with 95 %
              intervals on both axes, one point per policy (per point and policy for a
              sweep folder: one panel per combination of environment-axis values, each
              with its own Pareto frontier joined by a line);
daily.png     the fresh-open rate by day, per policy, with its interval as a band
              (learning curves);
hourly.png    opens per device-day and fresh-open rate by hour of the day, per policy.

Usage: plot.py DIR [--out OUTDIR]   (OUTDIR defaults to DIR)
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402


def pooled_fleet(summary, swept, replications):
    """The fleet's rows (archetype `all`), one per point and policy: with several seeds, the
    mean over seeds with replications.csv's interval across them (when the folder has it)."""
    fleet = summary[summary["archetype"] == "all"]
    if fleet["seed"].nunique() <= 1:
        return fleet
    keys = swept + ["policy"]
    figures = ["background_energy_j_per_day", "fresh_open_rate"]
    columns = keys + ["pareto"] if "pareto" in fleet.columns else keys
    means = fleet.groupby(columns, sort=False)[figures].mean().reset_index()
    for metric in figures:
        if replications is not None:
            r = replications[(replications["archetype"] == "all") & (replications["metric"] == metric)]
            r = r[keys + ["ci_low", "ci_high"]].rename(columns={"ci_low": metric + "_ci_low", "ci_high": metric + "_ci_high"})
            means = means.merge(r, on=keys, how="left")
        else:
            means[metric + "_ci_low"] = means[metric + "_ci_high"] = means[metric]
    return means


def frontier_panel(ax, fleet, design):
    """One world: a point per design (policy, design-axis values) with its 95 % intervals,
    labelled by its design values (labels moved apart so they do not overlap), and the
    world's Pareto frontier joined by a line."""
    labels = []
    for policy, rows in fleet.groupby("policy", sort=False):
        x, y = rows["background_energy_j_per_day"], rows["fresh_open_rate"]
        xerr = [(x - rows["background_energy_j_per_day_ci_low"]).clip(lower=0),
                (rows["background_energy_j_per_day_ci_high"] - x).clip(lower=0)]
        yerr = [(y - rows["fresh_open_rate_ci_low"]).clip(lower=0), (rows["fresh_open_rate_ci_high"] - y).clip(lower=0)]
        ax.errorbar(x, y, xerr=xerr, yerr=yerr, fmt="o", capsize=3, label=policy)
        if design:
            for _, r in rows.iterrows():
                labels.append((r["background_energy_j_per_day"], r["fresh_open_rate"],
                               ", ".join(str(r[c]) for c in design)))
    # Labels in order of height, each pushed up past the one below it when they would touch.
    placed = []
    span = ax.get_ylim()[1] - ax.get_ylim()[0] or 1.0
    for x, y, text in sorted(labels, key=lambda t: (t[1], t[0])):
        offset = 3
        for px, py, po in placed:
            if abs(px - x) < 0.15 * (ax.get_xlim()[1] - ax.get_xlim()[0] or 1.0) and abs(py - y) < 0.04 * span:
                offset = max(offset, po + 8)
        placed.append((x, y, offset))
        ax.annotate(text, (x, y), fontsize=6, xytext=(3, offset), textcoords="offset points")
    if "pareto" in fleet.columns:
        front = fleet[fleet["pareto"].astype(str) == "True"].sort_values("background_energy_j_per_day")
        ax.plot(front["background_energy_j_per_day"], front["fresh_open_rate"], "k--", lw=0.8, label="Pareto frontier")


def frontier(summary, out, replications=None):
    """frontier.png. In a sweep folder the axes under `policies.` are design axes, the
    others environment axes: one panel per combination of environment values (the worlds),
    each with its own frontier (summary.csv's `pareto` column is computed the same way)."""
    swept = list(summary.columns[: list(summary.columns).index("scenario")])
    design = [c for c in swept if c.startswith("policies.")]
    environment = [c for c in swept if not c.startswith("policies.")]
    fleet = pooled_fleet(summary, swept, replications)
    worlds = list(fleet.groupby(environment, sort=False)) if environment else [((), fleet)]
    columns = min(3, len(worlds))
    rows = (len(worlds) + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(7 if columns == 1 else 4.5 * columns, 5 if rows == 1 else 4 * rows),
                             squeeze=False, sharex=True, sharey=True)
    for ax, (values, world) in zip(axes.flat, worlds):
        values = values if isinstance(values, tuple) else (values,)
        frontier_panel(ax, world, design)
        if environment:
            ax.set_title(", ".join(f"{c} = {v}" for c, v in zip(environment, values)), fontsize=8)
    for ax in list(axes.flat)[len(worlds):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("background energy (J per device-day)")
    for ax in axes[:, 0]:
        ax.set_ylabel("fresh-open rate")
    fig.suptitle("Freshness against energy (95 % intervals)" + (", one panel per world" if environment else ""))
    axes.flat[0].legend(fontsize=8)
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
    replications_path = os.path.join(args.folder, "replications.csv")
    frontier(pd.read_csv(summary_path), out,
             pd.read_csv(replications_path) if os.path.exists(replications_path) else None)
    written.append("frontier.png")
    for name, draw in (("daily.csv", daily), ("hourly.csv", hourly)):
        path = os.path.join(args.folder, name)
        if os.path.exists(path):
            draw(pd.read_csv(path), out)
            written.append(name.replace(".csv", ".png"))
    for name in written:
        print(os.path.join(out, name))


if __name__ == "__main__":
    main()
