#!/bin/sh
# Regenerates the "Measured" paragraph of the messaging preset in Datasets/README.md
# (between <!-- messaging-measured:begin --> and <!-- messaging-measured:end -->) from
# three runs of the preset, 200 devices × 28 days, seed 1: `push`, `fixed` and `none`;
# then `push` with 30 % of pushes lost, with its refresh fallback and without it
# (`policies.push.fallback_interval=0s`). Never edit the paragraph by hand. Usage, from
# the checkout:
#
#     docs/make-messaging-measured.sh          # a few seconds with a release build
#
# Needs a release build (it builds one if missing) and python3 (standard library only).
set -eu
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/release/bgbench}
[ -x "$BIN" ] || swift build -c release
OUT=$(mktemp -d "${TMPDIR:-/tmp}/bgbench-messaging.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
common="--scenario messaging --days 28 --devices 200 --seed 1 --quiet"
# shellcheck disable=SC2086
"$BIN" $common --policy push,fixed,none --out "$OUT/base" >/dev/null
# shellcheck disable=SC2086
"$BIN" $common --policy push --set push.drop_probability=0.3 --out "$OUT/lossy" >/dev/null
# shellcheck disable=SC2086
"$BIN" $common --policy push --set push.drop_probability=0.3 --set policies.push.fallback_interval=0s \
    --out "$OUT/nofallback" >/dev/null
python3 - "$OUT" Datasets/README.md <<'PY'
import csv, sys

out, readme = sys.argv[1:]

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
    f"Measured (`docs/make-messaging-measured.sh`: `bgbench --scenario messaging --days 28 --devices 200\n"
    f"--seed 1 --policy push,fixed,none`): `push` {pct(push)} fresh opens, mean staleness\n"
    f"{secs(push)}, {runs(push)} runs and {joules(push)} a day; `fixed` (15 min) {pct(fixed)}, {secs(fixed)},\n"
    f"{joules(fixed)}; `none` {pct(none)}. With 30 % of pushes lost (`--set push.drop_probability=0.3`) the\n"
    f"fallback keeps {pct(lossy)} fresh ({secs(lossy)}) against {pct(bare)} ({secs(bare)}) without it (`--set\n"
    f"policies.push.fallback_interval=0s`): `MessagingPresetTests` checks that recovery."
)
doc = open(readme).read()
begin, end = "<!-- messaging-measured:begin -->", "<!-- messaging-measured:end -->"
head, rest = doc.split(begin)
_, tail = rest.split(end)
open(readme, "w").write(head + begin + "\n" + text + "\n" + end + tail)
print(text)
PY
