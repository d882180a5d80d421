#!/usr/bin/env python3
"""Draws a bgbench report folder as PNG files (run by `bgbench plot DIR`).

headline.png  the scenario's headline metrics (scenario.json's report.headline): each policy's
              paired difference from the baseline with its 95 % interval (a run folder);
frontier.png  fresh-open rate against background energy per device-day, with 95 %
              intervals on both axes, one point per policy (per point and policy for a
              sweep folder: one panel per combination of environment-axis values, each
              with its own Pareto frontier joined by a line);
daily.png     learning curves: the fresh-open rate by day and over a rolling week, as the
              paired difference from the baseline policy, mean over seeds with a band
              across seeds;
hourly.png    opens by hour of the day, and the fresh-open rate by hour as the paired
              difference from the baseline.
frontier-curves.png  (a `bgbench frontier` folder) each policy's fresh-open rate minus
              the baseline's against background energy, one curve per policy through its
              knob values, with the paired 95 % intervals of both differences.

Every drawing takes its colours and markers from palette().

Usage: plot.py DIR [--out OUTDIR]   (OUTDIR defaults to DIR)
"""
import argparse
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402
import pandas as pd  # noqa: E402

# Each PNG is signed in a text chunk, so that a later bgbench run replacing this folder
# knows the file as its own and never deletes a PNG the user drew (Reports/README.md, "What
# may be replaced").
SIGNATURE = {"Software": "bgbench plot"}


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
        colour, marker = palette(fleet["policy"])[policy]
        ax.errorbar(x, y, xerr=xerr, yerr=yerr, fmt=marker, color=colour, capsize=3, label=policy)
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
    fig.savefig(os.path.join(out, "frontier.png"), dpi=120, metadata=SIGNATURE)
    plt.close(fig)


# Every built-in policy keeps its colour and marker in every drawing and every run (the
# order of `bgbench list`, then `prophet`); other names follow in the order met. 20
# colours and 12 markers: colours never repeat below 21 policies, (colour, marker) pairs
# below 61 (lcm(20, 12) = 60).
KNOWN_POLICIES = ["none", "fixed", "adaptive", "usage", "histogram", "nhpp", "bayes", "kde", "logistic",
                  "push", "oracle", "prophet"]
COLOURS = ["#000000", "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#17becf", "#bcbd22", "#7f7f7f", "#aec7e8", "#98df8a", "#ff9896", "#c5b0d5", "#f7b6d2",
           "#dbdb8d", "#9edae5", "#ffbb78", "#c49c94"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p"]


def palette(policies):
    """{policy: (colour, marker)} for every name in policies; use it in every drawing."""
    extra = [p for p in dict.fromkeys(policies) if p not in KNOWN_POLICIES]
    styles = {}
    for p in dict.fromkeys(policies):
        i = KNOWN_POLICIES.index(p) if p in KNOWN_POLICIES else len(KNOWN_POLICIES) + extra.index(p)
        styles[p] = (COLOURS[i % len(COLOURS)], MARKERS[i % len(MARKERS)])
    return styles


def t975(df):
    """The 97.5 % quantile of Student's t with df degrees of freedom (scipy is not needed)."""
    table = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
             10: 2.228, 12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042, 60: 2.000}
    if df in table:
        return table[df]
    below = max(k for k in table if k < df) if df > 1 else 1
    return table[below] if df < 60 else 1.96


def baseline_of(folder, policies):
    """The run's baseline: paired.csv's, else `fixed` when it ran, else the first policy."""
    paired = os.path.join(folder, "paired.csv")
    if os.path.exists(paired):
        names = pd.read_csv(paired, usecols=["baseline"])["baseline"].dropna().unique()
        if len(names):
            return names[0]
    return "fixed" if "fixed" in policies else policies[0]


def with_totals(table, x):
    """Adds per-device totals of the rate's numerator (fresh opens) and denominator (opens)."""
    table = table.copy()
    table["opens"] = table["opens_per_day"]
    table["fresh"] = table["fresh_open_rate"] * table["opens_per_day"]
    return table.sort_values(["policy", "seed", x])


def rolling_week(table):
    """Fresh-open rate over the 7 days ending on each day: Σ fresh / Σ opens (days 1-6 use what there is)."""
    out = []
    for _, rows in table.groupby(["policy", "seed"], sort=False):
        rows = rows.copy()
        fresh = rows["fresh"].fillna(0).rolling(7, min_periods=1).sum()
        opens = rows["opens"].fillna(0).rolling(7, min_periods=1).sum()
        rows["fresh_open_rate"] = (fresh / opens).where(opens > 0)
        out.append(rows)
    return pd.concat(out)


def differences(table, x, column, baseline, scale=1):
    """Per policy and x: the paired difference policy − baseline, averaged over the seeds, and its 95 %
    interval across the seeds (mean ± t·sd/√R; none with one seed). Every policy meets the same devices
    and the same opens (the opens columns agree row by row), so the difference of two fleet ratios is
    the fleet ratio of the per-device differences: the paired difference."""
    base = table[table["policy"] == baseline].set_index(["seed", x])[column]
    rows = []
    for policy, part in table[table["policy"] != baseline].groupby("policy", sort=False):
        d = ((part.set_index(["seed", x])[column] - base) * scale).reset_index()
        rows.append(across_seeds(d.groupby(x)[column], policy))
    return pd.concat(rows) if rows else pd.DataFrame(columns=[x, "mean", "low", "high", "policy"])


def levels(table, x, column):
    """Per policy and x: the mean over the seeds and its 95 % interval across them (one policy run)."""
    rows = []
    for policy, part in table.groupby("policy", sort=False):
        rows.append(across_seeds(part.groupby(x)[column], policy))
    return pd.concat(rows)


def across_seeds(groups, policy):
    """Per group (an x value): the mean over the seeds and its 95 % interval mean ± t·sd/√R (none
    with one seed), labelled with the policy."""
    stats = pd.DataFrame({"mean": groups.mean(), "sd": groups.std(), "n": groups.count()}).reset_index()
    half = stats.apply(lambda r: t975(int(r["n"]) - 1) * r["sd"] / math.sqrt(r["n"]) if r["n"] > 1 else float("nan"),
                       axis=1)
    stats["low"], stats["high"], stats["policy"] = stats["mean"] - half, stats["mean"] + half, policy
    return stats


def draw_lines(ax, stats, x, styles, every):
    """One line per policy (its colour, its marker every `every` points) with its band."""
    for policy, (colour, marker) in styles.items():
        rows = stats[stats["policy"] == policy]
        if rows.empty:
            continue
        ax.plot(rows[x], rows["mean"], color=colour, marker=marker, markevery=every, markersize=5, lw=1.3,
                label=policy)
        if rows["low"].notna().any():
            ax.fill_between(rows[x], rows["low"], rows["high"], color=colour, alpha=0.12, lw=0)


def curves(table, x, column, baseline, policies, ax):
    """Differences from the baseline when more than one policy ran, else the levels; returns the stats."""
    if len(policies) > 1:
        ax.axhline(0, color=palette(policies)[baseline][0], lw=1, ls="--", label=f"{baseline} (baseline)")
        return differences(table, x, column, baseline, scale=100)  # a rate's difference in percentage points
    return levels(table, x, column)


def band_note(table):
    seeds = table["seed"].nunique()
    return f"mean of {seeds} seeds, 95 % band across seeds" if seeds > 1 else "one seed: no band (--replications R draws one)"


# References, not contenders: no background work, server push, the bounds. Their curves sit
# far from the learners', so the learners get a zoomed panel without them.
REFERENCES = ["none", "push", "oracle", "prophet"]


def zoomed(policies, baseline):
    """The policies of the zoomed panel (None when no reference and no contender ran)."""
    rest = [p for p in policies if p not in REFERENCES and p != baseline]
    return rest if rest and len(rest) + 1 < len(policies) else None


def daily(table, out, baseline, policies):
    table = with_totals(table, "day")
    styles = palette(policies)
    zoom = zoomed(policies, baseline) if len(policies) > 1 else None
    rows = 2 if zoom else 1
    fig, axes = plt.subplots(rows, 2, figsize=(12, 4.4 * rows), sharey="row", squeeze=False)
    every = max(1, table["day"].nunique() // 12)
    views = ((table, "by day"), (rolling_week(table), "rolling 7 days"))
    for row in range(rows):
        for ax, (data, title) in zip(axes[row], views):
            shown = dict(styles) if row == 0 else {p: styles[p] for p in zoom}
            draw_lines(ax, curves(data, "day", "fresh_open_rate", baseline, policies, ax), "day", shown, every)
            ax.set_title(title if row == 0 else f"{title}: zoom, without {', '.join(p for p in REFERENCES if p in policies)}",
                         fontsize=10)
            ax.set_xlabel("day")
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.grid(alpha=0.3)
        if len(policies) > 1:
            axes[row][0].set_ylabel(f"fresh opens − {baseline}'s\n(percentage points)")
        else:
            axes[row][0].set_ylabel("fresh-open rate")
    if len(policies) > 1:
        fig.suptitle(f"Learning curves: fresh-open rate, paired difference from {baseline} ({band_note(table)})")
    else:
        fig.suptitle(f"Learning curve: fresh-open rate ({band_note(table)})")
    axes[0][1].legend(fontsize=8, loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig.tight_layout()
    fig.savefig(os.path.join(out, "daily.png"), dpi=120, metadata=SIGNATURE)
    plt.close(fig)


def hourly(table, out, baseline, policies):
    styles = palette(policies)
    zoom = zoomed(policies, baseline) if len(policies) > 1 else None
    ratios = [1, 2, 2] if zoom else [1, 2]
    fig, axes = plt.subplots(len(ratios), 1, figsize=(9, 2.2 * sum(ratios) + 0.5), sharex=True,
                             gridspec_kw={"height_ratios": ratios})
    top = axes[0]
    # Every policy meets the same opens: one curve (the first policy's, mean over the seeds).
    opens = table[table["policy"] == policies[0]].groupby("hour")["opens_per_day"].mean()
    top.bar(opens.index, opens.values, color="#999999", width=0.8)
    top.set_ylabel("opens per\ndevice-day")
    top.set_title("Opens by hour (the same under every policy)", fontsize=10)
    for i, ax in enumerate(axes[1:]):
        shown = dict(styles) if i == 0 else {p: styles[p] for p in zoom}
        draw_lines(ax, curves(table, "hour", "fresh_open_rate", baseline, policies, ax), "hour", shown, 1)
        if len(policies) > 1:
            ax.set_ylabel(f"fresh opens − {baseline}'s\n(percentage points)")
            title = f"Fresh-open rate by hour, paired difference from {baseline} ({band_note(table)})"
            if i == 1:
                title = f"zoom, without {', '.join(p for p in REFERENCES if p in policies)}"
            ax.set_title(title, fontsize=10)
        else:
            ax.set_ylabel("fresh-open rate")
            ax.set_title(f"Fresh-open rate by hour ({band_note(table)})", fontsize=10)
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("hour of day (device-local)")
    axes[-1].set_xticks(range(0, 24, 2))
    axes[1].legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(os.path.join(out, "hourly.png"), dpi=120, metadata=SIGNATURE)
    plt.close(fig)


DEFAULT_HEADLINE = ["fresh_open_rate", "staleness_mean_s", "background_energy_j_per_day", "runs_per_day"]


def headline_metrics(folder):
    """The scenario's headline metrics (scenario.json's report.headline), else the default list."""
    path = os.path.join(folder, "scenario.json")
    if os.path.exists(path):
        with open(path) as f:
            names = json.load(f).get("report", {}).get("headline")
        if names:
            return names
    return DEFAULT_HEADLINE


def headline_rows(folder, summary, metric, baseline, policies):
    """Per policy: (value, low, high, significant) of the paired difference from the baseline
    (replications.csv's across seeds when replicated, else paired.csv's over devices), or of the
    level (summary.csv, the mean over seeds) for one policy or a metric that is not paired."""
    rows = {}
    replications = os.path.join(folder, "replications.csv")
    paired = os.path.join(folder, "paired.csv")
    table = pd.read_csv(replications) if os.path.exists(replications) else None
    if len(policies) > 1 and table is not None and "difference" in table.columns:
        part = table[(table["metric"] == metric) & table["difference"].notna()]
        for _, r in part.iterrows():
            rows[r["policy"]] = (r["difference"], r["difference_ci_low"], r["difference_ci_high"],
                                 r["difference_excludes_zero"] is True or r["difference_excludes_zero"] == "true")
    elif len(policies) > 1 and os.path.exists(paired):
        table = pd.read_csv(paired)
        for _, r in table[table["metric"] == metric].iterrows():
            rows[r["policy"]] = (r["difference"], r["difference_ci_low"], r["difference_ci_high"],
                                 r["excludes_zero"] is True or r["excludes_zero"] == "true")
    if rows:
        return rows, True
    fleet = summary[summary["archetype"] == "all"]
    for policy, part in fleet.groupby("policy", sort=False):
        low = part[metric + "_ci_low"].mean() if metric + "_ci_low" in part else float("nan")
        high = part[metric + "_ci_high"].mean() if metric + "_ci_high" in part else float("nan")
        rows[policy] = (part[metric].mean(), low, high, False)
    return rows, False


def headline(folder, summary, out, baseline, policies):
    """headline.png: one panel per headline metric, every policy's paired difference from the
    baseline with its 95 % interval (filled: the interval excludes 0), or its level."""
    metrics = [m for m in headline_metrics(folder) if m in summary.columns]
    styles = palette(policies)
    columns = 2 if len(metrics) > 1 else 1
    lines = (len(metrics) + columns - 1) // columns
    fig, axes = plt.subplots(lines, columns, figsize=(6 * columns, 0.35 * len(policies) * lines + 1.6 * lines),
                             squeeze=False)
    seeds = summary["seed"].nunique()
    for ax, metric in zip(axes.flat, metrics):
        rows, paired = headline_rows(folder, summary, metric, baseline, policies)
        shown = [p for p in policies if p in rows]
        for i, policy in enumerate(reversed(shown)):
            value, low, high, significant = rows[policy]
            colour, marker = styles[policy]
            if pd.notna(low) and pd.notna(high):
                ax.plot([low, high], [i, i], color=colour, lw=2)
            ax.plot([value], [i], marker=marker, color=colour, markersize=8,
                    markerfacecolor=colour if significant or not paired else "white")
        ax.set_yticks(range(len(shown)))
        ax.set_yticklabels(list(reversed(shown)), fontsize=8)
        if paired:
            ax.axvline(0, color=styles[baseline][0], ls="--", lw=1)
            level = summary[(summary["archetype"] == "all") & (summary["policy"] == baseline)][metric].mean()
            ax.set_title(f"{metric} − {baseline}'s ({baseline}: {level:.4g})", fontsize=9)
        else:
            ax.set_title(metric, fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    for ax in list(axes.flat)[len(metrics):]:
        ax.axis("off")
    if len(policies) > 1:
        how = f"across {seeds} seeds" if seeds > 1 else "over devices"
        fig.suptitle(f"Headline metrics (report.headline): paired difference from {baseline}, 95 % interval {how}; "
                     "filled: excludes 0", fontsize=10)
    else:
        fig.suptitle("Headline metrics (report.headline), 95 % interval", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "headline.png"), dpi=120, metadata=SIGNATURE)
    plt.close(fig)


def frontier_curves(table, out):
    """frontier.csv: per policy, its arms' quality difference from the baseline (the
    frontier's quality axis, `quality_metric`: the fresh-open rate unless the preset or
    `--quality` names another; in points) against their J/day, joined in order of energy;
    the bars are the paired intervals (across seeds when the folder is replicated).
    Policies without a knob are single points. Left: every arm; right: up to twice the
    baseline's J/day, where most knobs lie."""
    interval = "seeds" if (table["interval"] == "seeds").any() else "devices"
    rows = table[table["interval"] == interval]
    if interval == "devices":
        rows = rows[rows["seed"] == rows["seed"].iloc[0]]
    baseline = rows["baseline"].iloc[0]
    base = rows[rows["arm"] == baseline].iloc[0]
    f, e = "quality", "background_energy_j_per_day"
    metric = rows["quality_metric"].iloc[0]
    styles = palette(list(dict.fromkeys(rows["policy"])))
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
            colour, marker = styles[policy]
            ax.errorbar(x, y, xerr=xerr, yerr=yerr, fmt=marker + ("-" if len(arms) > 1 else ""), capsize=2, lw=1, ms=4,
                        label=policy, color=colour)
        ax.axhline(0, color="grey", lw=0.6)
        ax.axvline(base[e], color="grey", lw=0.6, ls=":")
        ax.plot([base[e]], [0], "k*", ms=12, label=f"{baseline} (baseline point)")
        ax.set_xlabel("background energy (J per device-day)")
        ax.set_ylabel(f"{metric} minus {baseline}'s (points)")
        ax.set_title(f"up to twice {baseline}'s J/day" if zoom else "every arm", fontsize=10)
        if zoom and low == low and high == high:
            margin = 0.1 * max(high - low, 0.1)
            ax.set_ylim(low - margin, high + margin)
    axes[0].legend(fontsize=7, ncol=2)
    fig.suptitle("Frontier: each policy over its knob, paired with the baseline (95 % intervals, "
                 + ("across seeds)" if interval == "seeds" else "device-clustered)"), fontsize=11)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "frontier-curves.png"), dpi=120, metadata=SIGNATURE)
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
    summary = pd.read_csv(summary_path)
    policies = list(dict.fromkeys(summary["policy"]))
    baseline = baseline_of(args.folder, policies)
    run_folder = list(summary.columns).index("scenario") == 0  # a sweep's summary.csv starts with its axes
    if run_folder:
        headline(args.folder, summary, out, baseline, policies)
        written.append("headline.png")
    replications_path = os.path.join(args.folder, "replications.csv")
    frontier(summary, out, pd.read_csv(replications_path) if os.path.exists(replications_path) else None)
    written.append("frontier.png")
    # A sweep folder is drawn as its frontier panels: its daily and hourly rows are per point.
    for name, draw in (("daily.csv", daily), ("hourly.csv", hourly)) if run_folder else ():
        path = os.path.join(args.folder, name)
        if os.path.exists(path):
            draw(pd.read_csv(path), out, baseline, policies)
            written.append(name.replace(".csv", ".png"))
    # A frontier folder: each policy's curve over its knob values (frontier.csv).
    if os.path.exists(os.path.join(args.folder, "frontier.csv")):
        frontier_curves(pd.read_csv(os.path.join(args.folder, "frontier.csv")), out)
        written.append("frontier-curves.png")
    for name in written:
        print(os.path.join(out, name))


if __name__ == "__main__":
    main()
