#!/bin/sh
# Regenerates docs/gallery/ and docs/gallery.md: every figure `bgbench plot` draws, for
# each kind of report folder, from small runs (200 devices × 14 days), drawn by the
# checkout's Reports/plot.py at 72 dpi so the committed PNGs stay small. Run it after
# changing Reports/plot.py (and commit the result). The commands, as the page cites them:
#
#   run         bgbench --policy all --devices 200 --days 14 --trace-devices 20
#   replicated  bgbench --policy fixed,adaptive,usage,none,oracle --devices 200 --days 14 --replications 3
#   preset      bgbench --scenario fitness-sync --policy fixed,adaptive,usage,none --devices 200 --days 14
#   sweep       bgbench sweep --set platform.name=ios-bgtask,ios-fetch,android-workmanager \
#                   --policy fixed,adaptive,usage,push,oracle --devices 200 --days 14
#   sweep-knob  bgbench sweep --set policies.fixed.interval=15m,30m,1h,2h,4h --policy fixed,adaptive \
#                   --devices 200 --days 14
#   frontier    bgbench frontier --devices 200 --days 14            (every policy: 53 arms)
#   merged      bgbench --policy fixed,adaptive,none --devices 256 --days 14 --shard K/2 (K = 0, 1),
#                   then bgbench merge
#   suite       bgbench suite --policy adaptive,kde --quick      (a scorecard folder: docs/suite.md)
#
# then `python3 Reports/plot.py DIR --out docs/gallery/KIND --dpi 72` for each.
#
# Usage, from the checkout:   docs/make-gallery.sh     (BIN=path/to/bgbench to use another build)
# Needs a bgbench build (it builds a release one if missing) and python3 with matplotlib and pandas.
set -eu
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/release/bgbench}
[ -x "$BIN" ] || swift build -c release
OUT=$(mktemp -d "${TMPDIR:-/tmp}/bgbench-gallery.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
SIZE="--devices 200 --days 14 --quiet"

"$BIN" --policy all $SIZE --trace-devices 20 --out "$OUT/run" >/dev/null
"$BIN" --policy fixed,adaptive,usage,none,oracle $SIZE --replications 3 --out "$OUT/replicated" >/dev/null
"$BIN" --scenario fitness-sync --policy fixed,adaptive,usage,none $SIZE --out "$OUT/preset" >/dev/null
"$BIN" sweep --set platform.name=ios-bgtask,ios-fetch,android-workmanager --policy fixed,adaptive,usage,push,oracle \
    $SIZE --out "$OUT/sweep" >/dev/null
"$BIN" sweep --set policies.fixed.interval=15m,30m,1h,2h,4h --policy fixed,adaptive $SIZE --out "$OUT/sweep-knob" \
    >/dev/null
"$BIN" frontier $SIZE --out "$OUT/frontier" >/dev/null
for k in 0 1; do
    "$BIN" --policy fixed,adaptive,none --devices 256 --days 14 --quiet --shard "$k/2" --out "$OUT/shards/$k" >/dev/null
done
"$BIN" merge --quiet --out "$OUT/merged" "$OUT/shards" >/dev/null
"$BIN" suite --policy adaptive,kde --quick --quiet --out "$OUT/suite" >/dev/null

rm -rf docs/gallery
for kind in run replicated preset sweep sweep-knob frontier merged suite; do
    python3 Reports/plot.py "$OUT/$kind" --out "docs/gallery/$kind" --dpi 72 >/dev/null
done

python3 - <<'PY'
import os

KINDS = [
    ("run", "A run: every policy, one seed",
     "bgbench --policy all --devices 200 --days 14 --trace-devices 20",
     "One seed: the intervals are over devices (paired.csv), the daily and hourly curves have no band. "
     "`--trace-devices 20` writes events.csv, from which staleness.png draws the ECDF."),
    ("replicated", "A replicated run: three seeds",
     "bgbench --policy fixed,adaptive,usage,none,oracle --devices 200 --days 14 --replications 3",
     "Every interval is across the seeds (replications.csv), the band of the curves too. Without events.csv, "
     "staleness.png shows the three points summary.csv knows."),
    ("preset", "A preset: fitness-sync, whose headline is the server's on-time rate",
     "bgbench --scenario fitness-sync --policy fixed,adaptive,usage,none --devices 200 --days 14",
     "The preset's report.headline (server jobs on time, server lag, energy, fresh opens) drives every figure: "
     "frontier.png's vertical axis is the on-time rate; daily.png and hourly.png draw all four (the server "
     "jobs run at 04:00 UTC, so by hour the server rows move in that hour only)."),
    ("sweep", "A sweep over platforms",
     "bgbench sweep --set platform.name=ios-bgtask,ios-fetch,android-workmanager "
     "--policy fixed,adaptive,usage,push,oracle --devices 200 --days 14",
     "One panel per world, each to its own scale; the bounds beyond it are drawn at the edge and listed "
     "under the axis; policies on the same point are named."),
    ("sweep-knob", "A sweep of fixed's interval",
     "bgbench sweep --set policies.fixed.interval=15m,30m,1h,2h,4h --policy fixed,adaptive --devices 200 --days 14",
     "fixed's line runs through its five intervals (labelled at its ends); adaptive, which the axis does not "
     "change, is one point."),
    ("frontier", "A frontier: every policy over its knob (53 arms)",
     "bgbench frontier --devices 200 --days 14",
     "One colour per policy, its arms along its line; twelve legend entries, not 53."),
    ("merged", "Merged shards",
     "bgbench --policy fixed,adaptive,none --devices 256 --days 14 --shard K/2   # K = 0, 1\n"
     "bgbench merge --out merged shards/",
     "A merged folder is a run folder, byte for byte: the same figures."),
    ("suite", "A scorecard: the benchmark suite's quick subset",
     "bgbench suite --policy adaptive,kde --quick",
     "Five tasks at 200 devices × 28 days × 3 seeds (docs/suite.md). The gap shares are on fresh opens in "
     "every task, so one axis holds them all; the verdicts are on each task's own headline metric."),
]
FIGURES = {
    "headline.png": "each headline metric (scenario.json's report.headline), one panel each: every policy's "
                    "paired difference from the baseline with its 95 % interval, filled where it excludes 0; "
                    "a bound beyond the others is an arrow at the edge with its value",
    "frontier.png": "the first headline metric that is not an energy against background energy; the bars are "
                    "the paired 95 % intervals of each difference from the baseline, drawn around the level",
    "frontier-curves.png": "one panel per policy: its quality minus the baseline's through its knob values, "
                           "with the paired intervals of both differences, the other policies' arms in grey",
    "daily.png": "the headline metrics daily.csv keeps, by day and over a rolling week, as paired differences "
                 "from the baseline",
    "hourly.png": "the share of opens by hour, then each headline metric by hour: a per-open one as the hour's "
                  "part of the day's difference (difference × share of opens), so quiet night hours weigh little",
    "staleness.png": "the distribution of staleness at opens, an ECDF per policy",
    "scorecard.png": "per task, each policy's share of the fixed → oracle and fixed → prophet gaps in fresh "
                     "opens closed, with its 95 % interval across seeds (a grey × where undefined), and its "
                     "verdict against fixed",
    "energy.png": "energy per device-day by what spends it, and the work behind it (runs, push runs, "
                  "transfers, foreground fetches)",
}
lines = [
    "# Gallery: what `bgbench plot` draws",
    "",
    "<!-- Generated by docs/make-gallery.sh: do not edit; run it again after changing Reports/plot.py. -->",
    "",
    "Every figure of every kind of report folder, from small runs (200 devices × 14 days: the numbers are",
    "noisy, the figures are the point), drawn at 72 dpi; `bgbench plot` draws them at 100 dpi. Conventions",
    "of every figure: one colour and marker per policy; rates in % (levels) and percentage points",
    "(differences) while the CSVs keep ratios 0–1; the interval drawn is named in the title; `none`, `push`,",
    "`oracle` and `prophet` are drawn apart when they lie far from the others (`bgbench plot --no-bounds`",
    "leaves the bounds out; `--policy` and `--metric` choose what is drawn). Reports/README.md, \"Plots\",",
    "describes each file.",
    "",
]
for kind, heading, command, note in KINDS:
    lines += [f"## {heading}", "", "```sh", command, "```", "", note, ""]
    for name in sorted(os.listdir(f"docs/gallery/{kind}"), key=list(FIGURES).index):
        lines += [f"**{name}**: {FIGURES[name]}.", "", f"![{kind} {name}](gallery/{kind}/{name})", ""]
with open("docs/gallery.md", "w") as f:
    f.write("\n".join(lines))
PY
du -sh docs/gallery
