#!/usr/bin/env python3
"""The "Measured" paragraphs that quote runs (docs/make-measured.sh runs them and writes
the blocks): reads the report folders under OUT and leaves each block's text in
OUT/messaging-measured.md (Datasets/README.md) and OUT/push-measured.md (docs/policies.md).
Standard library only.

    measured_blocks.py OUT
"""
import csv, sys

out = sys.argv[1]

def rewrite(path, marker, text):
    """Leaves the block's text in OUT/MARKER.md for Scripts/python/docblock.py."""
    open(f"{out}/{marker}.md", "w").write(text + "\n")

def fleet(run, policy):
    for r in csv.DictReader(open(f"{out}/{run}/summary.csv")):
        if r["archetype"] == "all" and r["policy"] == policy:
            return r
    raise SystemExit(f"no fleet row for {policy} in {run}")

def pct(r): return f"{100 * float(r['fresh_open_rate']):.1f} %"
def secs(r): return f"{float(r['staleness_mean_s']):,.0f} s"
def runs(r): return f"{float(r['runs_per_day']):.1f}"
def joules(r): return f"{float(r['background_energy_j_per_day']):,.0f} J"

push, fixed, none = (fleet("base", p) for p in ("push", "fixed", "none"))
lossy, bare = fleet("lossy", "push"), fleet("nofallback", "push")
text = (
    f"Measured (`docs/make-measured.sh`: `bgbench --scenario messaging --days 28 --devices 200\n"
    f"--seed 1 --policy push,fixed,none`): `push` {pct(push)} fresh opens, mean staleness\n"
    f"{secs(push)}, {runs(push)} runs and {joules(push)} a day; `fixed` (15 min) {pct(fixed)}, {secs(fixed)},\n"
    f"{joules(fixed)}; `none` {pct(none)}. With 30 % of pushes lost (`--set push.drop_probability=0.3`) the\n"
    f"fallback keeps {pct(lossy)} fresh ({secs(lossy)}) against {pct(bare)} ({secs(bare)}) without it (`--set\n"
    f"policies.push.fallback_interval=0s`): `MessagingPresetTests` checks that recovery."
)
rewrite("Datasets/README.md", "messaging-measured", text)

push, adaptive, oracle = (fleet("pushdefault", p) for p in ("push", "adaptive", "oracle"))
r1push, r1oracle = fleet("pushr1", "push"), fleet("pushr1", "oracle")
text = (
    f"- **Measured** (`docs/make-measured.sh`: default scenario, `bgbench --policy push,adaptive,oracle --days 42\n"
    f"  --warmup-days 14 --devices 200 --seed 5`): fresh opens {pct(push)} (adaptive {pct(adaptive)}, oracle\n"
    f"  {pct(oracle)}), mean staleness {secs(push)} (adaptive {secs(adaptive)}, oracle {secs(oracle)}), {runs(push)} runs and\n"
    f"  {joules(push)} a day (adaptive {runs(adaptive)} runs, {joules(adaptive)}; oracle {runs(oracle)} runs, {joules(oracle)}):\n"
    f"  freshness bought with energy, since every push costs a run. On R1 (`--scenario r1`, the same\n"
    f"  options), {pct(r1push)} against the oracle's {pct(r1oracle)}."
)
rewrite("docs/policies.md", "push-measured", text)
