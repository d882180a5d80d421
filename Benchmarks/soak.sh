#!/usr/bin/env bash
# The soak run (issue 13 point 7): the default scenario with every policy at 20,000
# devices × 365 days, and `adaptive` alone at 100,000 × 365, both in checking mode
# (--check-invariants: every device's identities, or the process stops). Then every CSV
# of both folders is read: no NaN, no infinity, no negative count. Prints wall time and
# peak memory of each run (GNU time) as a Markdown table (README.md, "Soak and invariants").
#
#   Benchmarks/soak.sh [--binary PATH] [--small]
#
# --small runs a tenth of each fleet (a quick look; the committed figures are full size).
set -euo pipefail
cd "$(dirname "$0")/.."
binary=.build/release/bgbench
scale=1
while [ $# -gt 0 ]; do
    case "$1" in
        --binary) binary=$2; shift 2 ;;
        --small) scale=10; shift ;;
        *) echo "usage: Benchmarks/soak.sh [--binary PATH] [--small]" >&2; exit 64 ;;
    esac
done
[ -x "$binary" ] || { echo "error: no bgbench at $binary: build it with 'swift build -c release'" >&2; exit 66; }
[ -x /usr/bin/time ] || { echo "error: needs GNU time (/usr/bin/time): apt-get install -y time" >&2; exit 69; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

results=()
soak() {
    local name=$1; shift
    /usr/bin/time -f "%e %M" -o "$work/$name.time" "$binary" "$@" --check-invariants --quiet --out "$work/$name" >/dev/null
    read -r seconds kb < "$work/$name.time"
    results+=("| \`bgbench $* --check-invariants\` | $seconds | $((kb / 1024)) |")
    echo "$name: $seconds s, $((kb / 1024)) MB peak"
}
soak all --policy all --days 365 --devices $((20000 / scale)) --seed 1
soak adaptive --policy adaptive --days 365 --devices $((100000 / scale)) --seed 1
soak adaptive-small --policy adaptive --days 365 --devices $((1000 / scale)) --seed 1

python3 - "$work" <<'PY'
import csv, math, os, sys
text = {"scenario", "policy", "archetype", "platform", "baseline", "metric", "event", "detail", "utc_time", "excludes_zero"}
bad = 0; cells = 0
for folder in ("all", "adaptive"):
    root = os.path.join(sys.argv[1], folder)
    for name in sorted(os.listdir(root)):
        if not name.endswith(".csv"): continue
        with open(os.path.join(root, name), newline="") as f:
            rows = csv.reader(f); header = next(rows)
            for line, row in enumerate(rows, start=2):
                for column, value in zip(header, row):
                    if column in text or value == "": continue
                    if value in ("true", "false"): continue
                    cells += 1
                    x = float(value)
                    if not math.isfinite(x):
                        print(f"error: {folder}/{name}:{line}: {column} is {value}"); bad += 1
                    elif x < 0 and not (column.startswith("difference") or column.endswith(("_ci_low", "_ci_high"))):
                        print(f"error: {folder}/{name}:{line}: {column} is negative: {value}"); bad += 1
print(f"{cells} numbers read: {bad} NaN, infinite or negative")
sys.exit(1 if bad else 0)
PY
echo
echo "| command | wall s | peak MB |"
echo "|---|---:|---:|"
printf '%s\n' "${results[@]}"
