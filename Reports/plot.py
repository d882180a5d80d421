#!/usr/bin/env python3
"""Draws a bgbench report folder as PNG files (run by `bgbench plot DIR`).

The figures, by folder kind (a run folder: a run, a replicated run, a preset's run, merged shards):

headline.png         (run, frontier) one panel per headline metric (scenario.json's report.headline,
                     or --metric): each policy's paired difference from the baseline with its 95 %
                     interval, filled where the interval excludes 0 (one policy: its level);
frontier.png         (every kind) the first headline metric that is not an energy (the quality)
                     against background energy per device-day, one colour per policy, a policy's
                     knob or swept values as markers along its line; the bars are the paired 95 %
                     intervals of each difference from the baseline, drawn around the policy's level
                     (the title names them). A sweep: one panel per world (combination of its
                     environment axes), each scaled to its own data;
frontier-curves.png  (frontier) one panel per policy: its quality minus the baseline's against J/day
                     through its knob values (each labelled), with the paired intervals, the baseline's
                     point and the other arms in grey; a shared scale, wider for a far reference;
daily.png            (run) the headline metrics that daily.csv keeps, by day and over a rolling week,
                     as paired differences from the baseline (mean over seeds, band across seeds);
hourly.png           (run) the share of opens by hour, and the headline metrics by hour: a per-open
                     metric as each hour's part of the whole-day difference (difference × the hour's
                     share of opens, so a night hour with few opens weighs little), a share (the
                     processing task on time) as the share of the instances resolved in the hour;
                     hours shaded by their share of opens;
staleness.png        (run) the distribution of staleness at opens, an ECDF per policy (events.csv's
                     traced devices), else the points summary.csv knows (fresh share, median, p95);
scorecard.png        (suite) per task, the share of the fixed → oracle and fixed → prophet gaps in fresh
                     opens each policy closes with its 95 % interval across seeds (an undefined share
                     marked as such), and its verdict against fixed;
energy.png           (run) energy per device-day by what spends it (background runs, foreground
                     fetches, the processing task) and the background work behind it (scheduled and
                     push runs, image transfers, foreground fetches), per policy.

Conventions: one colour and marker per policy (palette()); rates are ratios 0-1 in the CSVs and drawn
in % (levels) or percentage points (differences); every axis names its unit; the references (`none`,
`push`, `oracle`, `prophet`) are drawn apart when they would squash the others (apart()): the axis is
scaled to the other policies and a reference beyond it is drawn at the edge with its values
(--no-bounds leaves push, oracle and prophet out);
one legend per figure, outside the panels; every figure under 2,000 px a side.

Usage: plot.py DIR [--out OUTDIR] [--metric NAME[,NAME...]] [--policy A[,B...]] [--no-bounds] [--dpi N]
An unknown metric or policy is one `error:` line on stderr, exit 64.
"""
import argparse
import json
import math
import os
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402
import pandas as pd  # noqa: E402

# Each PNG is signed in a text chunk, so that a later bgbench run replacing this folder
# knows the file as its own and never deletes a PNG the user drew (Reports/README.md, "What
# may be replaced").
SIGNATURE = {"Software": "bgbench plot"}
DPI = 100
MAX_INCHES = 19.0  # 1,900 px at DPI: every figure stays under 2,000 px a side
LEGEND_INCHES = 2.4
BOUNDS = ["push", "oracle", "prophet"]  # what --no-bounds leaves out
REFERENCES = ["none"] + BOUNDS  # drawn apart: no axis is scaled to them
DEFAULT_HEADLINE = ["fresh_open_rate", "staleness_mean_s", "background_energy_j_per_day", "runs_per_day"]
ENERGY = "background_energy_j_per_day"
# Metrics of daily.csv and hourly.csv that are per open (a ratio of sums over opens); the others are per device-day
# but the shares, each row's share of the instances resolved in it (its hours do not add up to its day).
PER_OPEN = {"fresh_open_rate", "staleness_mean_s", "age_mean_s", "foreground_wait_per_open_s"}
SHARES = {"processing_on_time_rate"}

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


def family(name):
    """The policy of an arm (`fixed[interval=5m]` → `fixed`); a policy's own name otherwise."""
    return str(name).split("[")[0]


# ---------------------------------------------------------------------------------------------
# Units: what a metric is called and how it is drawn.

NAMES = {"fresh_open_rate": "fresh opens", "server_on_time_rate": "server jobs on time",
         "processing_on_time_rate": "processing tasks on time", "staleness_mean_s": "mean staleness",
         "server_lag_mean_s": "mean server lag", "age_mean_s": "mean age of information",
         ENERGY: "background energy", "runs_per_day": "background runs",
         "foreground_wait_per_open_s": "foreground wait per open", "battery_pct_per_day": "battery",
         "push_runs_per_day": "push runs", "push_lost_per_day": "pushes lost",
         "cellular_image_bytes_per_day": "image bytes on cellular", "processing_energy_j_per_day": "processing energy"}


def measure(metric, values=()):
    """(name, factor, level unit, difference unit) of a metric: a rate is drawn in % and its
    difference in percentage points; seconds in s, min or h and bytes in B, kB or MB by the size
    of `values` (in the metric's own unit); per device-day counts say so."""
    name = NAMES.get(metric, metric.replace("_per_day", "").replace("_j", "").replace("_s", "")
                     .replace("_", " "))
    if metric.endswith("_rate"):
        return name, 100.0, "%", "points"
    if metric == "battery_pct_per_day":
        return name, 1.0, "% of capacity per device-day", "points per device-day"
    per_day = " per device-day" if metric.endswith("_per_day") else ""
    size = max([abs(v) for v in values if v == v] or [0])
    if "_j" in metric:
        return name, 1.0, "J" + per_day, "J" + per_day
    if "bytes" in metric:
        factor, unit = (1e-6, "MB") if size >= 1e6 else (1e-3, "kB") if size >= 1e3 else (1.0, "B")
        return name, factor, unit + per_day, unit + per_day
    if metric.endswith("_s") or "_s_" in metric:
        factor, unit = (1 / 3600, "h") if size >= 7200 else (1 / 60, "min") if size >= 120 else (1.0, "s")
        return name, factor, unit + per_day, unit + per_day
    return name, 1.0, per_day.strip() or "count", per_day.strip() or "count"


def minimum_span(metric, level):
    """The least span an axis of this metric shows, in drawn units: 1 point for a rate, 2 % of
    the baseline's level otherwise (1 unit when that level is 0: a count, bytes or joules that
    the baseline never has), so that noise is never blown up to fill a panel."""
    if metric.endswith("_rate"):
        return 1.0
    return max(0.02 * abs(level), 1e-9) if level else 1.0


def span(values, minimum):
    """(low, high) of the finite values, at least `minimum` wide, padded 8 % each side."""
    v = [x for x in values if x == x and abs(x) != math.inf]
    if not v:
        return -minimum / 2, minimum / 2
    low, high = min(v), max(v)
    if high - low < minimum:
        middle = (low + high) / 2
        low, high = middle - minimum / 2, middle + minimum / 2
    pad = 0.08 * (high - low)
    return low - pad, high + pad


def apart(contenders, everything, minimum):
    """An axis range that keeps the references apart: the contenders' values' span when
    everything's would squash them into less than a quarter of the axis, else everything's."""
    inner, outer = span(contenders, minimum), span(everything, minimum)
    return inner if inner[1] - inner[0] < 0.25 * (outer[1] - outer[0]) else outer


# ---------------------------------------------------------------------------------------------
# Figures: size, legend, title, file.

def figure(rows, columns, panel, legend=True, ratios=None, sharey=False):
    """A figure of rows × columns panels of `panel` = (width, height) inches, with a legend
    column at the right (outside every panel), capped at MAX_INCHES a side. Returns
    (figure, panels as a list of rows, the legend's axes or None)."""
    width = min(MAX_INCHES, columns * panel[0] + (LEGEND_INCHES if legend else 0))
    height = min(MAX_INCHES, (sum(ratios) if ratios else rows) * panel[1] + 0.9)
    fig = plt.figure(figsize=(width, height), layout="constrained")
    widths = [panel[0]] * columns + ([LEGEND_INCHES] if legend else [])
    grid = fig.add_gridspec(rows, len(widths), width_ratios=widths, height_ratios=ratios)
    axes, first = [], None
    for r in range(rows):
        axes.append([])
        for c in range(columns):
            ax = fig.add_subplot(grid[r, c], sharey=first if sharey else None)
            first = first or ax
            axes[-1].append(ax)
    key = fig.add_subplot(grid[:, -1]) if legend else None
    if key is not None:
        key.axis("off")
    return fig, axes, key


def legend(key, styles, notes=None, extra=()):
    """One legend for the figure, in its own column: a line and marker per policy (with a note,
    e.g. `(baseline)`), then `extra` handles."""
    notes = notes or {}
    handles = [Line2D([], [], color=c, marker=m, lw=1.3, ms=6, label=p + notes.get(p, ""))
               for p, (c, m) in styles.items()]
    key.legend(handles=handles + list(extra), loc="center left", frameon=False, fontsize=8,
               borderaxespad=0)


def title(fig, text):
    """The figure's title, wrapped to its width (never between 95 and %)."""
    width = fig.get_size_inches()[0]
    fig.suptitle(textwrap.fill(text.replace("95 %", "95\u00a0%"), int(width * 11)), fontsize=10)


def save(fig, out, name, written):
    """Draws `name` whole or not at all: into a hidden temporary file beside it, renamed
    over it when complete. A file that cannot be written (a full disk) is removed and is
    one line, exit 73 (bgbench plot passes it on), the earlier PNG as it was."""
    path = os.path.join(out, name)
    temporary = os.path.join(out, f".{name}.tmp-{os.getpid()}")
    try:
        fig.savefig(temporary, format="png", dpi=save.dpi, metadata=SIGNATURE)
        os.replace(temporary, path)
    except OSError as error:
        try:
            os.remove(temporary)
        except OSError:
            pass
        print(f"error: cannot write '{path}': {error.strerror or error}", file=sys.stderr)
        sys.exit(73)
    plt.close(fig)
    written.append(name)


save.dpi = DPI  # --dpi lowers it (the gallery)


# ---------------------------------------------------------------------------------------------
# The folder: its tables narrowed to the policies asked for, its baseline, its metrics.

def read(folder, name):
    path = os.path.join(folder, name)
    return pd.read_csv(path) if os.path.exists(path) else None


def usage_error(message):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(64)


def metric_columns(summary):
    """summary.csv's metric columns (not the intervals, flags, identity or axis columns)."""
    columns = list(summary.columns)
    first = columns.index("device_days") + 1
    return [c for c in columns[first:] if not c.endswith(("_ci_low", "_ci_high", "_unstable")) and c != "pareto"]


def headline_metrics(folder):
    """The scenario's headline metrics (scenario.json's report.headline), else the default list."""
    path = os.path.join(folder, "scenario.json")
    if os.path.exists(path):
        with open(path) as f:
            names = json.load(f).get("report", {}).get("headline")
        if names:
            return names
    return DEFAULT_HEADLINE


def baseline_of(folder, policies):
    """The run's baseline: paired.csv's, else `fixed` when it ran, else the first policy."""
    paired = read(folder, "paired.csv")
    if paired is not None and paired["baseline"].notna().any():
        return paired["baseline"].dropna().iloc[0]
    return "fixed" if "fixed" in policies else policies[0]


def is_true(column):
    return column.astype(str).str.lower() == "true"


class Folder:
    """A report folder's tables, narrowed to the policies drawn (the baseline always stays:
    every difference is from it)."""

    def __init__(self, path, asked_metrics, asked_policies, no_bounds):
        self.path = path
        self.summary = read(path, "summary.csv")
        columns = list(self.summary.columns)
        self.axes = columns[: columns.index("scenario")]  # a sweep's summary.csv starts with its axes
        self.frontier = read(path, "frontier.csv")
        self.kind = "frontier" if self.frontier is not None else "sweep" if self.axes else "run"
        every = list(dict.fromkeys(self.summary["policy"]))
        self.baseline = baseline_of(path, every)
        families = list(dict.fromkeys(family(p) for p in every))
        known = metric_columns(self.summary)
        for m in asked_metrics or []:
            if m not in known:
                usage_error(f"unknown metric '{m}' for '--metric': expected one of {', '.join(known)}")
        for p in asked_policies or []:
            if p not in families and p not in every:
                usage_error(f"unknown policy '{p}' for '--policy': expected one of the folder's policies "
                            f"({', '.join(families)})")
        self.metrics = asked_metrics or [m for m in headline_metrics(path) if m in known]
        self.chosen = "metrics of --metric" if asked_metrics else "headline metrics (report.headline)"
        keep = set(asked_policies or families) | {family(self.baseline)}
        if no_bounds:
            keep -= set(BOUNDS) - {family(self.baseline)}
        self.kept = lambda table: table[table["policy"].map(family).isin(keep)] if table is not None else None
        self.summary = self.kept(self.summary)
        self.policies = list(dict.fromkeys(self.summary["policy"]))
        self.families = list(dict.fromkeys(family(p) for p in self.policies))
        self.styles = palette(self.families)
        self.seeds = self.summary["seed"].nunique()

    def table(self, name):
        return self.kept(read(self.path, name))

    def qualities(self):
        """The metrics that are not an energy, in order."""
        return [m for m in self.metrics if "_j_" not in m and not m.endswith("_j")]

    def same_under_every_policy(self, metric):
        """Whether every policy of the folder has the same value of the metric (summary.csv's
        fleet rows) at every seed and axis values: nothing to compare on that axis."""
        fleet = self.summary[self.summary["archetype"] == "all"]
        if metric not in fleet.columns or fleet["policy"].nunique() < 2:
            return False
        return bool((fleet.groupby(self.axes + ["seed"])[metric].nunique(dropna=False) <= 1).all())

    def quality(self):
        """The y axis of frontier.png: the first metric that is not an energy and that some
        policy changes (finance's processing on-time rate is the same under every refresh
        policy: its fresh opens then), else the first; fresh opens without one."""
        qualities = self.qualities()
        return next((m for m in qualities if not self.same_under_every_policy(m)),
                    qualities[0] if qualities else "fresh_open_rate")

    def levels(self, metrics):
        """The fleet's rows (archetype `all`), one per axis values and policy: the mean over seeds."""
        fleet = self.summary[self.summary["archetype"] == "all"]
        keys = self.axes + ["policy"]
        columns = [m for m in metrics if m in fleet.columns] + (["pareto"] if "pareto" in fleet.columns else [])
        means = fleet.groupby(keys, sort=False)[[c for c in columns if c != "pareto"]].mean()
        if "pareto" in columns:
            means["pareto"] = is_true(fleet.groupby(keys, sort=False)["pareto"].first())
        return means.reset_index()

    def paired(self):
        """Every policy's paired difference from the baseline, per axis values and metric, with
        its 95 % interval: replications.csv's across seeds when replicated, else paired.csv's over
        devices (of the first seed). Returns (table with difference, low, high, significant; the
        interval's name), or (None, None) with one policy."""
        replications = self.table("replications.csv")
        if replications is not None and replications["difference"].notna().any():
            t = replications[(replications["archetype"] == "all") & replications["difference"].notna()]
            t = t.rename(columns={"difference_ci_low": "low", "difference_ci_high": "high"})
            t["significant"] = is_true(t["difference_excludes_zero"])
            return t, f"95 % paired interval across {int(t['replications'].max())} seeds"
        paired = self.table("paired.csv")
        if paired is None or paired.empty:
            return None, None
        seed = paired["seed"].iloc[0]
        t = paired[paired["seed"] == seed].rename(columns={"difference_ci_low": "low", "difference_ci_high": "high"})
        t["significant"] = is_true(t["excludes_zero"])
        where = f", seed {seed}" if self.seeds > 1 else ""
        return t, f"95 % paired interval over devices{where}"


# ---------------------------------------------------------------------------------------------
# headline.png

def headline(folder, out, written):
    """One panel per headline metric, side by side, every policy (or arm) a row: its paired
    difference from the baseline with the interval, filled where it excludes 0."""
    metrics = folder.metrics
    paired, interval = folder.paired() if len(folder.policies) > 1 else (None, None)
    levels = folder.levels(metrics)
    rows = [p for p in folder.policies if paired is None or p != folder.baseline]
    columns = min(4, len(metrics))
    lines = (len(metrics) + columns - 1) // columns
    per_row = min(0.3, (MAX_INCHES - 1.2) / lines / max(len(rows), 1))
    fig, axes, key = figure(lines, columns, (3.4, max(2.0, per_row * len(rows) + 0.9)), sharey=True)
    for ax, metric in zip(sum(axes, []), metrics):
        if paired is not None:
            base = levels.loc[levels["policy"] == folder.baseline, metric].mean()
            part = paired[paired["metric"] == metric].set_index("policy")
            values = {p: (part.loc[p, "difference"], part.loc[p, "low"], part.loc[p, "high"],
                          bool(part.loc[p, "significant"])) for p in rows if p in part.index}
        else:
            base = float("nan")
            part = levels.set_index("policy")
            values = {p: (part.loc[p, metric], float("nan"), float("nan"), True) for p in rows}
        headline_panel(ax, metric, values, rows, base, folder)
    for ax in sum(axes, [])[len(metrics):]:
        ax.axis("off")
    for line in axes:
        line[0].set_yticks(range(len(rows)), list(reversed(rows)), fontsize=7 if len(rows) > 20 else 8)
        for ax in line[1:]:
            ax.tick_params(labelleft=False)
    if paired is not None:
        what = f"each policy's paired difference from {folder.baseline}, {interval}; filled: excludes 0"
    else:
        what = f"levels (mean of {folder.seeds} seeds)" if folder.seeds > 1 else "levels"
    title(fig, f"The {folder.chosen}: {what}")
    extra = [Line2D([], [], color="grey", ls="--", lw=1, label=f"{folder.baseline} (baseline)")] \
        if paired is not None else []
    legend(key, folder.styles, extra=extra)
    save(fig, out, "headline.png", written)


def headline_panel(ax, metric, values, rows, base, folder):
    """One metric: a row per policy; the axis scaled to the contenders, a reference beyond it
    drawn at the edge with its value; an all-zero metric says so instead."""
    name, _, unit, dunit = measure(metric, [base] + [v[0] for v in values.values()])
    _, factor, _, _ = measure(metric, [base])
    paired = base == base
    numbers = [x for v in values.values() for x in v[:3] if x == x]
    if not numbers or all(x == 0 for x in numbers) and (not paired or base == 0):
        ax.text(0.5, 0.5, "0 under every policy", ha="center", va="center", transform=ax.transAxes, fontsize=9)
        ax.set_xticks([])
        ax.set_title(f"{name}\n({metric})", fontsize=9)
        return
    contenders = [p for p in values if family(p) not in REFERENCES] or list(values)

    def drawn_values(policies):
        return [x * factor for p in policies for x in values[p][:3] if x == x] + ([0.0] if paired else [])

    low, high = apart(drawn_values(contenders), drawn_values(values), minimum_span(metric, base * factor if paired else 0))
    for i, policy in enumerate(reversed(rows)):
        if policy not in values:
            continue
        value, lo, hi, significant = (x * factor if isinstance(x, float) else x for x in values[policy])
        colour, marker = folder.styles[family(policy)]
        if low <= value <= high:
            if lo == lo:
                ax.plot([max(lo, low), min(hi, high)], [i, i], color=colour, lw=2)
            ax.plot([value], [i], marker=marker, color=colour, ms=7,
                    markerfacecolor=colour if significant else "white")
        else:  # drawn apart: an arrow at the edge with its value
            number = f"{value:+.3g}" if paired else f"{value:.3g}"
            right = value > high
            ax.annotate(f"{number} →" if right else f"← {number}", (high if right else low, i), fontsize=7,
                        color=colour, xytext=(-3 if right else 3, 0), textcoords="offset points",
                        ha="right" if right else "left", va="center")
    ax.set_xlim(low, high)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.grid(axis="x", alpha=0.3)
    if paired:
        ax.axvline(0, color="grey", ls="--", lw=1)
        _, _, level_unit, _ = measure(metric, [base])
        ax.set_xlabel(f"− {folder.baseline}'s ({dunit})", fontsize=8)
        ax.set_title(f"{name}\n({folder.baseline}: {base * factor:.3g} {level_unit})", fontsize=9)
    else:
        ax.set_xlabel(unit, fontsize=8)
        ax.set_title(name, fontsize=9)


# ---------------------------------------------------------------------------------------------
# frontier.png and frontier-curves.png: quality against energy.

def run_points(folder, quality):
    """Per world (environment axes' values) and policy × design values: the levels of quality
    and energy (mean over seeds) and the paired intervals of their differences from the baseline,
    in drawn units. A design axis (`policies.X.*`) belongs to policy X: the others, which it does
    not change, keep one point."""
    design = [c for c in folder.axes if c.startswith("policies.")]
    environment = [c for c in folder.axes if not c.startswith("policies.")]
    levels = folder.levels([quality, ENERGY])
    paired, interval = folder.paired()
    rows = []
    for _, r in levels.iterrows():
        own = [c for c in design if c.split(".")[1] == family(r["policy"])]
        point = {"world": tuple(r[c] for c in environment), "policy": family(r["policy"]),
                 "label": ", ".join(str(r[c]) for c in own), "key": tuple(r[c] for c in own),
                 "x": r[ENERGY], "y": r[quality], "pareto": bool(r.get("pareto", False)),
                 "baseline": r["policy"] == folder.baseline}
        for axis, metric in (("x", ENERGY), ("y", quality)):
            point["d" + axis] = point["d" + axis + "lo"] = point["d" + axis + "hi"] = float("nan")
            if paired is not None and not point["baseline"]:
                match = paired[(paired["policy"] == r["policy"]) & (paired["metric"] == metric)]
                for c in folder.axes:
                    match = match[match[c].astype(str) == str(r[c])]
                if not match.empty:
                    m = match.iloc[0]
                    for suffix, column in (("", "difference"), ("lo", "low"), ("hi", "high")):
                        point["d" + axis + suffix] = m[column]
        rows.append(point)
    points = pd.DataFrame(rows).drop_duplicates(subset=["world", "policy", "key"])
    return points, environment, interval


def frontier_points(folder, quality):
    """frontier.csv's arms as points: a policy's arms in its knob's order."""
    table = folder.frontier
    table = folder.kept(table)
    interval = "seeds" if (table["interval"] == "seeds").any() else "devices"
    rows = table[table["interval"] == interval]
    if interval == "devices":
        rows = rows[rows["seed"] == rows["seed"].iloc[0]]
    q = quality if quality + "_difference" in rows.columns else "quality"
    points = pd.DataFrame({
        "world": [()] * len(rows), "policy": rows["policy"].values,
        "label": rows["knob_value"].fillna("").astype(str).values, "key": rows["arm"].values,
        "x": rows[ENERGY].values, "y": rows[q].values, "pareto": False,
        "baseline": (rows["arm"] == rows["baseline"]).values,
        "dx": rows[ENERGY + "_difference"].values, "dxlo": rows[ENERGY + "_difference_ci_low"].values,
        "dxhi": rows[ENERGY + "_difference_ci_high"].values,
        "dy": rows[q + "_difference"].values, "dylo": rows[q + "_difference_ci_low"].values,
        "dyhi": rows[q + "_difference_ci_high"].values})
    metric = rows["quality_metric"].iloc[0] if q == "quality" else q
    name = f"95 % paired interval across {table['seed'].nunique()} seeds" if interval == "seeds" else \
        "95 % paired interval over devices (device-clustered)"
    return points, metric, name


def drawn(points, quality, difference):
    """The points in drawn units: Y (the level, or the difference from the baseline) and the
    bar ends Xlo, Xhi, Ylo, Yhi (the paired intervals, around the point)."""
    _, yf, _, _ = measure(quality)
    pts = points.copy()
    pts["Y"] = pts["dy"] * yf if difference else pts["y"] * yf
    pts.loc[pts["baseline"], "Y"] = 0.0 if difference else pts.loc[pts["baseline"], "Y"]
    pts["Ylo"] = pts["Y"] + (pts["dylo"] - pts["dy"]) * yf
    pts["Yhi"] = pts["Y"] + (pts["dyhi"] - pts["dy"]) * yf
    pts["X"] = pts["x"]
    pts["Xlo"] = pts["x"] + (pts["dxlo"] - pts["dx"])
    pts["Xhi"] = pts["x"] + (pts["dxhi"] - pts["dx"])
    return pts


def limits(pts, quality, everything=False):
    """(xlim, ylim) of drawn points, bars included, with the references apart (apart()) unless
    the contenders lie on a single point or `everything`; the baseline always in; no energy
    below 0."""
    main = pts[~pts["policy"].isin(REFERENCES)]
    main = main if len(main.drop_duplicates(["X", "Y"])) > 1 and not everything else pts
    base = pts[pts["baseline"]]

    def values(rows, axis):
        return [v for c in ("", "lo", "hi") for v in rows[axis + c]] + list(base[axis])

    size = max([abs(v) for v in values(main, "X") if v == v] or [0])
    xlim = apart(values(main, "X"), values(pts, "X"), max(1.0, 0.05 * size))
    xlim = (max(xlim[0], -0.02 * (xlim[1] - xlim[0])), xlim[1])
    size = max([abs(v) for v in values(main, "Y") if v == v] or [0])
    return xlim, apart(values(main, "Y"), values(pts, "Y"), minimum_span(quality, size))


def scatter_panel(ax, points, quality, folder, difference=False, bounds=None, label_all=False):
    """One world: a line per policy through its points (knob or design values, labelled at
    its ends, or all), the paired intervals as bars around each point; the axes `bounds`, or
    the contenders' range, with a point beyond them drawn hollow at the edge and its values
    under the axis; coincident policies named."""
    _, _, yunit, dunit = measure(quality)
    pts = drawn(points, quality, difference)
    xlim, ylim = bounds or limits(pts, quality)
    apart = []
    for policy, arms in pts.groupby("policy", sort=False):
        colour, marker = folder.styles[policy]
        inside = arms[arms["x"].between(*xlim) & arms["Y"].between(*ylim)]
        line = inside[~inside["baseline"]]
        if len(line) > 1:
            ax.plot(line["x"], line["Y"], color=colour, lw=1.1, alpha=0.8)
        for _, a in inside.iterrows():
            xerr = [[max(a["x"] - a["Xlo"], 0)], [max(a["Xhi"] - a["x"], 0)]] if a["Xlo"] == a["Xlo"] else None
            yerr = [[max(a["Y"] - a["Ylo"], 0)], [max(a["Yhi"] - a["Y"], 0)]] if a["Ylo"] == a["Ylo"] else None
            ax.errorbar([a["x"]], [a["Y"]], xerr=xerr, yerr=yerr, fmt=marker, color=colour,
                        ms=8 if a["baseline"] else 5, capsize=2, lw=0.7, alpha=0.9,
                        markeredgecolor="black" if a["baseline"] else colour)
        labelled = inside[inside["label"] != ""]
        ends = [0, len(labelled) - 1] if len(labelled) > 3 and not label_all else range(len(labelled))
        for i in sorted(set(ends)):
            a = labelled.iloc[i]
            if a["label"]:
                ax.annotate(a["label"], (a["x"], a["Y"]), fontsize=6.5, color=colour, xytext=(4, 3),
                            textcoords="offset points")
        for _, a in arms.drop(inside.index).iterrows():  # drawn apart: hollow at the edge, values below the axis
            ex, ey = min(max(a["x"], xlim[0]), xlim[1]), min(max(a["Y"], ylim[0]), ylim[1])
            ax.plot([ex], [ey], marker=marker, color=colour, ms=6, markerfacecolor="white", clip_on=False)
            apart.append(f"{policy}{' ' + a['label'] if a['label'] else ''} ({a['x']:.3g} J, {a['Y']:.3g} "
                         + (dunit if difference else yunit) + ")")
    same = pts.round({"x": 6, "Y": 6}).groupby(["x", "Y"])["policy"].unique()
    for (x, yv), names in same.items():
        if len(names) > 1 and xlim[0] <= x <= xlim[1] and ylim[0] <= yv <= ylim[1]:
            ax.annotate("same point: " + " = ".join(names), (x, yv), fontsize=6.5, xytext=(4, -10),
                        textcoords="offset points")
    if "pareto" in pts and pts["pareto"].any() and quality == "fresh_open_rate" and not difference:
        front = pts[pts["pareto"]].sort_values("x")
        ax.plot(front["x"], front["Y"], color="grey", ls=":", lw=1, zorder=0)
    if difference:
        ax.axhline(0, color="grey", lw=0.6)
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.grid(alpha=0.3)
    ax.set_xlabel("background energy (J per device-day)" + (
        "\n" + textwrap.fill("beyond the axes (hollow, at the edge): " + "; ".join(apart), 75) if apart else ""),
        fontsize=8)


def frontier(folder, out, written):
    """frontier.png: one panel per world (a sweep's environment values), each to its own scale."""
    quality = folder.quality()
    if folder.kind == "frontier":
        points, quality, interval = frontier_points(folder, quality)
        environment = []
    else:
        points, environment, interval = run_points(folder, quality)
    worlds = list(dict.fromkeys(points["world"]))
    columns = min(3, len(worlds))
    lines = (len(worlds) + columns - 1) // columns
    fig, axes, key = figure(lines, columns, (5.2 if columns > 1 else 7.5, 4.2 if lines > 1 else 5.5))
    name, _, yunit, _ = measure(quality)
    varying = [c for i, c in enumerate(environment) if len({w[i] for w in worlds}) > 1]
    for ax, world in zip(sum(axes, []), worlds):
        scatter_panel(ax, points[points["world"] == world], quality, folder)
        if varying:
            values = [str(world[environment.index(c)]) for c in varying]
            ax.set_title(values[0] if len(varying) == 1 else ", ".join(
                f"{c.split('.')[-1]} = {v}" for c, v in zip(varying, values)), fontsize=9)
        ax.set_ylabel(f"{name} ({yunit})", fontsize=8)
    for ax in sum(axes, [])[len(worlds):]:
        ax.axis("off")
    fixed = [f"{c} = {worlds[0][i]}" for i, c in enumerate(environment) if c not in varying]
    where = (f"; one panel per {', '.join(varying)}" if varying else "") + (f" ({', '.join(fixed)})" if fixed else "")
    bars = f"bars: {interval} of each difference from {folder.baseline}, around the level" if interval else \
        "one policy: no paired interval"
    knobs = "; markers along a line: its knob values" if folder.kind == "frontier" else \
        "; markers along a line: the swept values" if any(points["label"] != "") else ""
    swept = [c for c in folder.axes if c.startswith("policies.") and c.split(".")[1] == family(folder.baseline)]
    if swept and interval and len(points["policy"].unique()) > 1:
        first = folder.summary[swept[0]].iloc[0]
        knobs += (f"; {folder.baseline} is swept: each point is compared with {folder.baseline} at its own value, "
                  f"a policy the sweep does not change is drawn once, compared with {swept[0]} = {first}")
    seeds = f"mean of {folder.seeds} seeds; " if folder.seeds > 1 else ""
    skipped = [measure(m)[0] for m in folder.qualities()[:folder.qualities().index(quality)]] \
        if quality in folder.qualities() else []
    where += f"; {', '.join(skipped)}: the same under every policy, not drawn" if skipped else ""
    title(fig, f"{name.capitalize()} against background energy ({seeds}{bars}{knobs}){where}")
    extra = [Line2D([], [], color="grey", ls=":", lw=1, label="Pareto frontier of the\npoint estimates")] \
        if points["pareto"].any() and quality == "fresh_open_rate" else []
    legend(key, folder.styles, {family(folder.baseline): " (baseline)"}, extra)
    save(fig, out, "frontier.png", written)


def frontier_curves(folder, out, written):
    """frontier-curves.png: one panel per policy, its quality difference from the baseline
    against J/day through its knob values (each labelled), with the paired intervals, the
    baseline's point and every other arm in grey behind it. The panels share the
    contenders' scale; a reference whose arms lie beyond it gets a scale wide enough for both,
    and says so."""
    points, quality, interval = frontier_points(folder, folder.quality())
    every = drawn(points, quality, difference=True)
    shared = limits(every, quality)
    policies = list(dict.fromkeys(points["policy"]))
    columns = min(4, len(policies))
    lines = (len(policies) + columns - 1) // columns
    fig, axes, key = figure(lines, columns, (3.3, 2.7))
    name, _, _, dunit = measure(quality)
    base = every[every["baseline"]]
    for ax, policy in zip(sum(axes, []), policies):
        own = every[every["policy"] == policy]
        fits = own["x"].between(*shared[0]).all() and own["Y"].between(*shared[1]).all()
        wide = pd.concat([every[~every["policy"].isin(REFERENCES)], own])
        bounds = shared if fits or policy not in REFERENCES else limits(wide, quality, everything=True)
        others = every[(every["policy"] != policy) & ~every["baseline"]]
        ax.scatter(others["x"], others["Y"], s=6, color="#bbbbbb", zorder=0)
        if policy != family(folder.baseline):
            colour, marker = folder.styles[family(folder.baseline)]
            ax.plot(base["x"], base["Y"], marker=marker, color=colour, ms=7, markeredgecolor="black", ls="none")
        scatter_panel(ax, points[points["policy"] == policy], quality, folder, True, bounds, label_all=True)
        ax.axhline(0, color="grey", lw=0.6)
        ax.set_title(policy + ("" if bounds is shared else " (wider scale)"), fontsize=9,
                     color=folder.styles[policy][0])
        ax.tick_params(labelsize=7)
    for ax in sum(axes, [])[len(policies):]:
        ax.axis("off")
    for line in axes:
        line[0].set_ylabel(f"− {folder.baseline}'s ({dunit})", fontsize=8)
    title(fig, f"Frontier, one panel per policy: {name} minus {folder.baseline}'s against J/day through its knob "
               f"values (labelled); bars: {interval} of both differences; grey: the other policies' arms")
    legend(key, folder.styles, {family(folder.baseline): " (baseline, at 0)"})
    save(fig, out, "frontier-curves.png", written)


# ---------------------------------------------------------------------------------------------
# daily.png and hourly.png: curves over days and hours.

def t975(df):
    """The 97.5 % quantile of Student's t with df degrees of freedom (scipy is not needed)."""
    table = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
             10: 2.228, 12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042, 60: 2.000}
    if df in table:
        return table[df]
    below = max(k for k in table if k < df) if df > 1 else 1
    return table[below] if df < 60 else 1.96


def rolling_week(table, metric):
    """The metric over the 7 days ending on each day (days 1-6 use what there is): a per-open
    metric as Σ value × opens / Σ opens, a per-day one (and a share: daily.csv has not its
    denominator) as the mean of the days that have a value."""
    out = []
    for _, rows in table.sort_values("day").groupby(["policy", "seed"], sort=False):
        rows = rows.copy()
        if metric in PER_OPEN:
            total = (rows[metric] * rows["opens_per_day"]).fillna(0).rolling(7, min_periods=1).sum()
            opens = rows["opens_per_day"].fillna(0).rolling(7, min_periods=1).sum()
            rows[metric] = (total / opens).where(opens > 0)
        else:
            rows[metric] = rows[metric].rolling(7, min_periods=1).mean()
        out.append(rows)
    return pd.concat(out)


def differences(table, x, column, baseline):
    """Per policy and x: the paired difference policy − baseline, averaged over the seeds, and its 95 %
    interval across the seeds (mean ± t·sd/√R; none with one seed). Every policy meets the same devices
    and the same opens (the opens columns agree row by row), so the difference of two fleet ratios is
    the fleet ratio of the per-device differences: the paired difference."""
    base = table[table["policy"] == baseline].set_index(["seed", x])[column]
    rows = []
    for policy, part in table[table["policy"] != baseline].groupby("policy", sort=False):
        d = (part.set_index(["seed", x])[column] - base).reset_index()
        rows.append(across_seeds(d.groupby(x)[column], policy))
    return pd.concat(rows) if rows else pd.DataFrame(columns=[x, "mean", "low", "high", "policy"])


def levels(table, x, column):
    """Per policy and x: the mean over the seeds and its 95 % interval across them (one policy run)."""
    parts = table.groupby("policy", sort=False)
    return pd.concat([across_seeds(part.groupby(x)[column], policy) for policy, part in parts])


def across_seeds(groups, policy):
    """Per group (an x value): the mean over the seeds and its 95 % interval mean ± t·sd/√R (none
    with one seed), labelled with the policy."""
    stats = pd.DataFrame({"mean": groups.mean(), "sd": groups.std(), "n": groups.count()}).reset_index()
    half = [t975(int(n) - 1) * sd / math.sqrt(n) if n > 1 else float("nan") for n, sd in zip(stats["n"], stats["sd"])]
    stats["low"], stats["high"], stats["policy"] = stats["mean"] - half, stats["mean"] + half, policy
    return stats


def curves(ax, stats, x, metric, folder, level=0.0, every=1, paired=None):
    """One line per policy (its colour, its marker every `every` points) with its band across
    seeds; the axis scaled to the contenders (and 0), or to everything when the contenders lie
    on one value (a push metric, 0 but under `push`). Returns the policies left off scale.
    `paired`: differences (drawn around a dashed 0), by default when more than one policy ran."""
    _, factor, _, _ = measure(metric, [level])
    stats = stats.copy()
    for c in ("mean", "low", "high"):
        stats[c] = stats[c] * factor
    paired = len(folder.policies) > 1 if paired is None else paired
    if not paired:  # a level's band stays within what the metric can be: ≥ 0, a rate ≤ 100 %
        stats["low"] = stats["low"].clip(lower=0)
        if metric.endswith("_rate"):
            stats["high"] = stats["high"].clip(upper=100)
    contenders = stats[~stats["policy"].isin(REFERENCES)]
    contenders = contenders if not contenders.empty else stats
    if len({v for v in contenders["mean"] if v == v}) <= 1:
        contenders = stats

    def values(rows):
        return list(rows["mean"]) + list(rows["low"]) + list(rows["high"]) + ([0.0] if paired else [])

    # A level fills its panel, but a level of 0 everywhere gets a unit's axis, not 1e-9's.
    nonzero = any(v != 0 for v in values(stats) if v == v)
    low, high = apart(values(contenders), values(stats),
                      minimum_span(metric, level * factor) if paired else 1e-9 if nonzero else 1.0)
    if not paired:  # levels are never below 0
        low = max(low, -0.04 * (high - low))
    off = []
    for policy, rows in stats.groupby("policy", sort=False):
        colour, marker = folder.styles[policy]
        ax.plot(rows[x], rows["mean"], color=colour, marker=marker, markevery=every, ms=4, lw=1.3)
        if rows["low"].notna().any():
            ax.fill_between(rows[x], rows["low"], rows["high"], color=colour, alpha=0.12, lw=0)
        if (rows["mean"] < low).any() or (rows["mean"] > high).any():
            off.append(policy)
    if paired:
        ax.axhline(0, color="grey", lw=1, ls="--")
    ax.set_ylim(low, high)
    ax.grid(alpha=0.3)
    return off


def series_metrics(folder, table):
    """The metrics (folder.metrics) that a daily.csv or hourly.csv keeps with a value (the server
    columns are empty without server jobs, the processing share without a processing task), the
    others, and the note a title gives: those not kept and, when none is, that fresh opens are
    drawn instead."""
    kept = [m for m in folder.metrics if m in table.columns and table[m].notna().any()]
    missing = [m for m in folder.metrics if m not in kept]
    what = "day" if "day" in table.columns else "hour"
    note = f"; not kept per {what}: {', '.join(missing)}" if missing else ""
    if not kept:
        note += "; fresh opens drawn instead"
    return (kept or ["fresh_open_rate"]), missing, note


def same_under_every_policy(table, x, metric):
    """Whether every policy has the same value of the metric at every seed and x (the
    processing task, which no refresh policy changes; image bytes on cellular when images are
    Wi-Fi-only): then the figure draws its level, once, instead of differences of 0."""
    if table["policy"].nunique() < 2:
        return False
    return bool((table.groupby(["seed", x])[metric].nunique(dropna=False) <= 1).all())


def same_note(table, metric):
    values = table[metric].dropna()
    return ": 0 under every policy" if len(values) and (values == 0).all() else \
        ": the same under every policy, its level"


def band_note(folder):
    return f"mean of {folder.seeds} seeds, band: 95 % interval across seeds" if folder.seeds > 1 else \
        "one seed: no band (--replications R draws one)"


def baseline_level(folder, metric):
    fleet = folder.summary[(folder.summary["archetype"] == "all") & (folder.summary["policy"] == folder.baseline)]
    return fleet[metric].mean() if metric in fleet.columns else 0.0


def daily(folder, out, written):
    """daily.png: a row per headline metric daily.csv keeps; by day, and over a rolling week."""
    table = folder.table("daily.csv")
    metrics, _, note = series_metrics(folder, table)
    paired = len(folder.policies) > 1
    fig, axes, key = figure(len(metrics), 2, (5.2, 2.6), sharey=False)
    every = max(1, table["day"].nunique() // 12)
    off = set()
    drew_level = False
    for row, metric in zip(axes, metrics):
        level = baseline_level(folder, metric)
        name, _, unit, dunit = measure(metric, [level])
        same = paired and same_under_every_policy(table, "day", metric)
        drew_level |= same
        base = table[table["policy"] == folder.baseline]
        for ax, view in zip(row, ("by day", "rolling 7 days")):
            data = (base if same else table) if view == "by day" else rolling_week(base if same else table, metric)
            stats = differences(data, "day", metric, folder.baseline) if paired and not same else \
                levels(data, "day", metric)
            off |= set(curves(ax, stats, "day", metric, folder, level, every, paired=paired and not same))
            ax.set_title(f"{name}, {view}" + (same_note(table, metric) if same else ""), fontsize=9)
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        row[0].set_ylabel(f"− {folder.baseline}'s ({dunit})" if paired and not same else unit, fontsize=8)
        row[1].sharey(row[0])
    for ax in axes[-1]:
        ax.set_xlabel("day of the run", fontsize=8)
    what = f"paired difference from {folder.baseline}" if paired else "levels"
    title(fig, f"Learning curves: the {folder.chosen} by day, {what} ({band_note(folder)}){note}")
    notes = {p: " (off scale in places)" for p in off}
    if paired:
        notes[folder.baseline] = " (baseline, at 0 in the\ndifferences)" if drew_level else " (baseline, at 0)"
    legend(key, folder.styles, notes)
    save(fig, out, "daily.png", written)


def hourly(folder, out, written):
    """hourly.png: the share of opens by hour, then a row per headline metric hourly.csv keeps:
    a per-open metric as each hour's part of the day's difference (difference × share of opens),
    a per-day one as its difference (its hours add up to the day's); hours shaded by share."""
    table = folder.table("hourly.csv").copy()
    metrics, _, note = series_metrics(folder, table)
    paired = len(folder.policies) > 1
    opens = table[table["policy"] == folder.policies[0]]
    share = opens.groupby("seed")["opens_per_day"].transform(lambda v: v / v.sum())
    shares = pd.Series(share.values, index=pd.MultiIndex.from_frame(opens[["seed", "hour"]]))
    table["share"] = [shares[(s, h)] for s, h in zip(table["seed"], table["hour"])]
    mean_share = shares.groupby(level="hour").mean() * 100
    fig, axes, key = figure(1 + len(metrics), 1, (9, 2.2), ratios=[0.8] + [1] * len(metrics))
    top = axes[0][0]
    top.bar(mean_share.index, mean_share.values, color="#999999", width=0.8)
    top.set_ylabel("share of\nopens (%)", fontsize=8)
    top.set_title("Opens by hour (the same under every policy)", fontsize=9)
    off, drew_level = set(), False
    for (ax,), metric in zip(axes[1:], metrics):
        for h, s in mean_share.items():
            ax.axvspan(h - 0.5, h + 0.5, color="#999999", alpha=min(0.35, s / 100 * 3), lw=0)
        level = baseline_level(folder, metric)
        name, _, unit, dunit = measure(metric, [level])
        if paired and same_under_every_policy(table, "hour", metric):
            drew_level = True
            stats = levels(table[table["policy"] == folder.baseline], "hour", metric)
            off |= set(curves(ax, stats, "hour", metric, folder, level, paired=False))
            what = "share of the instances resolved in the hour" if metric in SHARES else "in the hour"
            ax.set_title(f"{name}, {what}" + same_note(table, metric), fontsize=9)
            ax.set_ylabel(unit, fontsize=8)
            continue
        weighted = paired and metric in PER_OPEN
        data = table.assign(**{metric: table[metric] * table["share"]}) if weighted else table
        stats = differences(data, "hour", metric, folder.baseline) if paired else levels(data, "hour", metric)
        off |= set(curves(ax, stats, "hour", metric, folder, level / 24 if weighted else level))
        if metric in SHARES:
            ax.set_title(f"{name}: share of the instances resolved in the hour" + (", difference" if paired else "")
                         + " (empty where none was; the hours do not add up to the day's)", fontsize=9)
            ax.set_ylabel(f"− {folder.baseline}'s\n({dunit})" if paired else unit, fontsize=8)
        elif weighted:
            ax.set_title(f"{name}: each hour's part of the whole-day difference (difference × the hour's share "
                         "of opens; the 24 add up to the day's)", fontsize=9)
            ax.set_ylabel(f"− {folder.baseline}'s\n({dunit})", fontsize=8)
        elif paired:
            ax.set_title(f"{name} in the hour, difference (the 24 add up to the day's)", fontsize=9)
            ax.set_ylabel(f"− {folder.baseline}'s\n({dunit})", fontsize=8)
        else:
            ax.set_title(name, fontsize=9)
            ax.set_ylabel(unit, fontsize=8)
    for (ax,) in axes:
        ax.set_xlim(-0.5, 23.5)
        ax.set_xticks(range(0, 24, 2))
    axes[-1][0].set_xlabel("hour of day (device-local); shading: share of opens", fontsize=8)
    what = f"paired difference from {folder.baseline}" if paired else "levels"
    title(fig, f"The day's hours: the {folder.chosen} by hour, {what} ({band_note(folder)}){note}")
    notes = {p: " (off scale in places)" for p in off}
    if paired:
        notes[folder.baseline] = " (baseline, at 0 in the\ndifferences)" if drew_level else " (baseline, at 0)"
    legend(key, folder.styles, notes)
    save(fig, out, "hourly.png", written)


# ---------------------------------------------------------------------------------------------
# staleness.png and energy.png

TIME_TICKS = [(1, "1 s"), (10, "10 s"), (60, "1 min"), (600, "10 min"), (3600, "1 h"), (6 * 3600, "6 h"),
              (86400, "1 d"), (7 * 86400, "1 w"), (30 * 86400, "30 d")]


def staleness(folder, out, written):
    """staleness.png: the share of opens at most x seconds stale, per policy: an ECDF of the
    traced devices' opens (events.csv), else summary.csv's three points (fresh share at the
    left edge, median, p95) joined by dashes."""
    events = folder.table("events.csv")
    opens = events[events["event"] == "open"] if events is not None else None
    fleet = folder.summary[folder.summary["archetype"] == "all"].groupby("policy", sort=False)[
        ["fresh_open_rate", "staleness_median_s", "staleness_p95_s"]].mean()
    fig, axes, key = figure(1, 1, (8.5, 5))
    ax = axes[0][0]
    highest = max(fleet["staleness_p95_s"].max(), opens["value"].max() if opens is not None and len(opens) else 0, 600)
    left, lowest = 10.0, 100.0
    ax.set_xscale("log")
    for policy in folder.policies:
        colour, marker = folder.styles[family(policy)]
        if opens is not None and len(opens):
            values = opens[opens["policy"] == policy]["value"].sort_values()
            share = pd.Series(range(1, len(values) + 1), dtype=float) / len(values) * 100
            x = values.clip(lower=left).values
            ax.step(x, share.values, where="post", color=colour, lw=1.3)
            lowest = min(lowest, (values <= left).mean() * 100)
        row = fleet.loc[policy]
        known = [(left, row["fresh_open_rate"] * 100)] + [(v, q) for v, q in ((row["staleness_median_s"], 50),
                                                                               (row["staleness_p95_s"], 95)) if v > 0]
        ax.plot([k[0] for k in known], [k[1] for k in known], marker=marker, color=colour, ms=6, lw=1,
                ls="none" if opens is not None and len(opens) else "--")
    ticks = [(t, s) for t, s in TIME_TICKS if left <= t <= highest * 2]
    ax.set_xticks([t for t, _ in ticks], [s for _, s in ticks])
    ax.set_xlim(left, highest * 1.5)
    lowest = min(lowest, fleet["fresh_open_rate"].min() * 100)
    ax.set_ylim(max(0, 10 * math.floor(lowest / 10 - 0.5)), 100)
    ax.grid(alpha=0.3)
    ax.set_xlabel(f"staleness at the open (log scale; fresh opens, 0 s, and any under {left:g} s at the left edge)",
                  fontsize=8)
    ax.set_ylabel("opens at most this stale (%)", fontsize=8)
    if opens is not None and len(opens):
        devices = opens["device"].nunique()
        how = (f"lines: ECDF of the {devices} traced devices' opens (events.csv); markers: the fleet's fresh share, "
               "median and p95 (summary.csv)")
    else:
        how = ("summary.csv's points only: the fleet's fresh share (left edge), median and p95, joined by dashes "
               "(not measured between); --trace-devices K draws the ECDF of K devices' opens")
    seeds = f"; mean of {folder.seeds} seeds" if folder.seeds > 1 else ""
    title(fig, f"Staleness at opens, per policy ({how}{seeds})")
    legend(key, folder.styles)
    save(fig, out, "staleness.png", written)


ENERGY_PARTS = [("background_energy_j_per_day", "background runs (launch, radio\npromotion, transfer, tail)"),
                ("foreground_energy_j_per_day", "foreground fetches at stale opens"),
                ("processing_energy_j_per_day", "processing task")]
WORK_PARTS = [("scheduled_runs", "scheduled background runs"), ("push_runs_per_day", "push runs"),
              ("transfers_per_day", "image transfers"), ("foreground_fetches_per_day", "foreground fetches")]
SHADES = [(1.0, ""), (0.45, "//"), (0.2, ".."), (0.45, "xx")]


def energy(folder, out, written):
    """energy.png: per policy, the energy per device-day by what spends it (stacked), and the
    work per device-day behind it (summary.csv; mean over seeds)."""
    fleet = folder.summary[folder.summary["archetype"] == "all"].groupby("policy", sort=False).mean(numeric_only=True)
    fleet["scheduled_runs"] = fleet["runs_per_day"] - fleet.get("push_runs_per_day", 0)
    parts = [(c, n) for c, n in ENERGY_PARTS if c in fleet.columns and fleet[c].abs().sum() > 0]
    work = [(c, n) for c, n in WORK_PARTS if c in fleet.columns and fleet[c].abs().sum() > 0]
    policies = list(reversed(folder.policies))
    fig, axes, key = figure(1, 2, (5.5, 0.35 * len(policies) + 1.6), sharey=True)
    left, right = axes[0]
    start = pd.Series(0.0, index=policies)
    for (column, _), (alpha, hatch) in zip(parts, SHADES):
        for i, policy in enumerate(policies):
            colour, _ = folder.styles[family(policy)]
            left.barh(i, fleet.loc[policy, column], left=start[policy], color=colour, alpha=alpha, hatch=hatch,
                      edgecolor=colour, lw=0.6)
        start += fleet.loc[policies, column]
    for i, policy in enumerate(policies):
        left.annotate(f"{start[policy]:.3g}", (start[policy], i), xytext=(3, 0), textcoords="offset points",
                      va="center", fontsize=7)
    left.set_xlim(0, start.max() * 1.15 or 1)
    left.set_yticks(range(len(policies)), policies, fontsize=8)
    left.set_xlabel("energy (J per device-day)", fontsize=8)
    left.set_title("Energy by what spends it", fontsize=9)
    height = 0.8 / max(len(work), 1)
    for k, ((column, _), (alpha, hatch)) in enumerate(zip(work, SHADES)):
        for i, policy in enumerate(policies):
            colour, _ = folder.styles[family(policy)]
            right.barh(i + 0.4 - height * (k + 0.5), fleet.loc[policy, column], height=height * 0.9, color=colour,
                       alpha=alpha, hatch=hatch, edgecolor=colour, lw=0.6)
    right.set_xlabel("count per device-day", fontsize=8)
    right.set_title("The work behind it (bars in the legend's order)", fontsize=9)
    right.tick_params(labelleft=False)
    for ax in (left, right):
        ax.grid(axis="x", alpha=0.3)
    absent = [n.split(" (")[0] for c, n in ENERGY_PARTS if (c, n) not in parts]
    note = f"; none in this run: {', '.join(absent)}" if absent else ""
    title(fig, f"Energy per policy (summary.csv{', mean of %d seeds' % folder.seeds if folder.seeds > 1 else ''}; "
               f"radio tails are inside background runs: summary.csv does not split them){note}")
    extra = [Patch(facecolor="#777777", alpha=a, hatch=h, edgecolor="#777777", label="energy: " + n)
             for (_, n), (a, h) in zip(parts, SHADES)]
    extra += [Patch(facecolor="#777777", alpha=a, hatch=h, edgecolor="#777777", label="work: " + n)
              for (_, n), (a, h) in zip(work, SHADES)]
    legend(key, folder.styles, extra=extra)
    save(fig, out, "energy.png", written)


# ---------------------------------------------------------------------------------------------

# ---------------------------------------------------------------------------------------------
# A scorecard folder (bgbench suite): scorecard.csv alone.

VERDICTS = {"dominates": ("^", "dominates fixed"), "trades_off": ("D", "trades off"),
            "indistinguishable": ("o", "indistinguishable"), "dominated": ("v", "dominated by fixed")}


# The gap shares' axis (%), beyond which a point is drawn at the edge with its value.
SHARE_LIMITS = (-100, 200)


def scorecard(path, out, written, asked_policies):
    """scorecard.png: per task (rows), each policy's share of the gaps closed (two panels, in %)
    and its verdict (a third); one colour per policy."""
    card = pd.read_csv(os.path.join(path, "scorecard.csv"), dtype={"seed": str})
    card = card[card["seed"].isna()]  # the values across seeds (per-seed rows are for --compare)
    policies = list(dict.fromkeys(card["policy"]))
    for p in asked_policies or []:
        if p not in policies:
            usage_error(f"unknown policy '{p}' for '--policy': expected one of the scorecard's policies "
                        f"({', '.join(policies)})")
    policies = asked_policies or policies
    tasks = [t for t in dict.fromkeys(card["task"]) if t != "all"]
    styles = palette(policies)
    height = min(MAX_INCHES, 0.42 * len(tasks) * max(1, len(policies)) ** 0.5 + 1.6)
    widths = [4.4, 4.4, 0.9 + 0.45 * len(policies), LEGEND_INCHES + 0.6]
    fig = plt.figure(figsize=(min(MAX_INCHES, sum(widths)), height), layout="constrained")
    grid = fig.add_gridspec(1, 4, width_ratios=widths)
    gap_axes = [fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1])]
    verdict_ax, key = fig.add_subplot(grid[0, 2]), fig.add_subplot(grid[0, 3])
    key.axis("off")
    step = 0.7 / max(1, len(policies))
    offset = {p: (i - (len(policies) - 1) / 2) * step for i, p in enumerate(policies)}
    undefined_seen = clipped_seen = False
    for ax, (quantity, bound) in zip(gap_axes, (("gap_closed_oracle", "oracle"), ("gap_closed_prophet", "prophet"))):
        # A share far outside 0–100 % (push's server-side wakes, none's) would squash every
        # other policy against 0: the axis stops at SHARE_LIMITS and such a point is drawn
        # at its edge, open, with its value written beside it.
        shares = card[card["quantity"] == quantity][["value", "ci_low", "ci_high"]].to_numpy(dtype=float) * 100
        low, high = SHARE_LIMITS
        clip = bool(((shares < low) | (shares > high)).any())
        for p in policies:
            colour, marker = styles[p]
            rows = card[(card["policy"] == p) & (card["quantity"] == quantity)].set_index("task")
            for i, t in enumerate(tasks):
                y = i + offset[p]
                if t not in rows.index:
                    continue
                r = rows.loc[t]
                if r["status"] != "ok" or pd.isna(r["value"]):
                    ax.plot([0], [y], marker="x", color="#999999", ms=5, ls="none")
                    undefined_seen = True
                    continue
                v, lo, hi = 100 * r["value"], 100 * r["ci_low"], 100 * r["ci_high"]
                if clip and not low <= v <= high:
                    edge = low if v < low else high
                    ax.plot([edge], [y], marker="<" if v < low else ">", color=colour, mfc="white", ms=6, ls="none")
                    ax.annotate(f"{v:,.0f} [{lo:,.0f}, {hi:,.0f}]", (edge, y), xytext=(-4 if v > high else 4, 0),
                                textcoords="offset points", ha="right" if v > high else "left", va="center",
                                fontsize=6, color=colour)
                    clipped_seen = True
                    continue
                left, right = (max(lo, low), min(hi, high)) if clip else (lo, hi)
                ax.errorbar([v], [y], xerr=[[v - left], [right - v]], color=colour, marker=marker, ms=5,
                            capsize=2, lw=1.1)
        if clip:
            ax.set_xlim(low - 0.04 * (high - low), high + 0.04 * (high - low))
        ax.axvline(0, color="#444444", lw=0.8)
        ax.axvline(100, color="#444444", lw=0.8, ls=":")
        ax.set_xlabel(f"fixed → {bound} gap closed, %")
        ax.set_yticks(range(len(tasks)))
        ax.set_yticklabels(tasks if ax is gap_axes[0] else [""] * len(tasks), fontsize=8)
        ax.set_ylim(len(tasks) - 0.5, -0.5)
        ax.grid(axis="x", color="#dddddd", lw=0.6)
    for p in policies:
        colour, _ = styles[p]
        rows = card[(card["policy"] == p) & (card["quantity"] == "verdict")].set_index("task")
        for i, t in enumerate(tasks):
            if t in rows.index:
                marker, _ = VERDICTS[rows.loc[t]["status"]]
                verdict_ax.plot([policies.index(p)], [i], marker=marker, color=colour, ms=7, ls="none")
    verdict_ax.set_xticks(range(len(policies)))
    verdict_ax.set_xticklabels(policies, rotation=30, ha="right", fontsize=8)
    verdict_ax.set_xlim(-0.6, len(policies) - 0.4)
    verdict_ax.set_yticks(range(len(tasks)))
    verdict_ax.set_yticklabels([""] * len(tasks))
    verdict_ax.set_ylim(len(tasks) - 0.5, -0.5)
    verdict_ax.set_xlabel("verdict")
    verdict_ax.grid(axis="y", color="#eeeeee", lw=0.6)
    extra = [Line2D([], [], color="#555555", marker=m, ls="none", ms=6, label=text) for m, text in VERDICTS.values()]
    if undefined_seen:
        extra.append(Line2D([], [], color="#999999", marker="x", ls="none", ms=5,
                            label="undefined: the gap is\nwithin its interval"))
    if clipped_seen:
        extra.append(Line2D([], [], color="#555555", marker=">", mfc="white", ls="none", ms=6,
                            label=f"beyond {SHARE_LIMITS[0]}…{SHARE_LIMITS[1]} %:\nat the edge, value\n[interval] beside it"))
    legend(key, styles, extra=extra)
    scope = card["scope"].iloc[0] if "scope" in card.columns and len(card) else "full"
    version = card["suite_version"].iloc[0] if len(card) else "?"
    title(fig, f"Suite v{version} ({scope}): the share of the gap in fresh opens from fixed to oracle and to "
               "prophet each policy closes, per task (bars: 95 % intervals across seeds); right: its verdict "
               "against fixed on the task's headline metric, at matched energy or at the points")
    save(fig, out, "scorecard.png", written)


def main():
    parser = argparse.ArgumentParser(description="Draw a bgbench report folder as PNG files.")
    parser.add_argument("folder")
    parser.add_argument("--out", default=None)
    parser.add_argument("--metric", default=None, help="metrics to draw, NAME[,NAME...] (default: report.headline)")
    parser.add_argument("--policy", default=None, help="policies to draw, A[,B...] (the baseline is always drawn)")
    parser.add_argument("--no-bounds", action="store_true", help="leave out push, oracle and prophet")
    parser.add_argument("--dpi", type=int, default=DPI, choices=range(30, DPI + 1), metavar="30..100",
                        help="pixels per inch (docs/make-gallery.sh draws small ones)")
    args = parser.parse_args()
    out = args.out or args.folder
    split = lambda text: [w for w in text.split(",") if w] if text else None  # noqa: E731
    if os.path.exists(os.path.join(args.folder, "scorecard.csv")):
        if args.metric:
            usage_error("'--metric' does not apply to a scorecard folder (its quantities are fixed: docs/suite.md)")
        save.dpi = args.dpi
        os.makedirs(out, exist_ok=True)
        written = []
        scorecard(args.folder, out, written, split(args.policy))
        for name in written:
            print(os.path.join(out, name))
        return
    if not os.path.exists(os.path.join(args.folder, "summary.csv")):
        sys.exit(f"error: no summary.csv in '{args.folder}': expected a bgbench report folder")
    folder = Folder(args.folder, split(args.metric), split(args.policy), args.no_bounds)
    save.dpi = args.dpi
    os.makedirs(out, exist_ok=True)
    written = []
    if folder.kind != "sweep":
        headline(folder, out, written)
    frontier(folder, out, written)
    if folder.kind == "run":
        for name, draw in (("daily.csv", daily), ("hourly.csv", hourly)):
            if os.path.exists(os.path.join(args.folder, name)):
                draw(folder, out, written)
        staleness(folder, out, written)
        energy(folder, out, written)
    if folder.kind == "frontier":
        frontier_curves(folder, out, written)
    for name in written:
        print(os.path.join(out, name))


if __name__ == "__main__":
    main()
