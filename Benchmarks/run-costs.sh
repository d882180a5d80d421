#!/usr/bin/env bash
# What a run costs, measured side by side in one sitting and written as README.md's block
# between <!-- run-costs:begin --> and <!-- run-costs:end --> ("Performance"):
#   1. each policy against `fixed`: `bgbench --policy NAME --days 365 --devices 1000
#      --threads 1` for every policy `--policy all` runs, ROUNDS rounds (default 5), the
#      policies interleaved within each round (user + system CPU seconds, GNU time), the
#      median of each policy's rounds over fixed's median;
#   2. a year of the default scenario: `bgbench --policy adaptive --days 365` (1,000
#      devices, every core), 5 runs: median wall, CPU and peak memory;
#   3. a run's fixed cost: `bgbench --policy adaptive --devices 1 --days 1`, 11 runs,
#      median wall.
#
#   Benchmarks/run-costs.sh [--binary PATH] [--rounds N] [--write]
#
# --binary PATH  the bgbench measured (default: bgbench on the PATH). Works from any
# folder; about 3 minutes of CPU with 5 rounds. Needs GNU time and python3.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
binary_arg='' rounds=5 write=0
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) rounds=$2; shift 2 ;;
        *) common_option "--binary --write" "$@" || { echo "usage: Benchmarks/run-costs.sh [--binary PATH] [--rounds N] [--write]" >&2; exit 64; }; shift "$consumed" ;;
    esac
done
resolve_binary "$binary_arg"
setup_work time
cd "$work"

start="$(sitting)"
# The policies `--policy all` runs, in its order, from a one-device run's run.json.
"$binary" --policy all --devices 1 --days 1 --quiet --out list >/dev/null
policies=$(python3 -c 'import json, sys; print(" ".join(json.load(open(sys.argv[1]))["policies"]))' list/run.json)
for round in $(seq 1 "$rounds"); do
    for policy in $policies; do
        /usr/bin/time -f "$policy %U %S %e %M" -a -o policies.txt "$binary" --policy "$policy" --days 365 --devices 1000 --threads 1 --quiet --out "p-$policy" --force >/dev/null
    done
    echo "round $round of $rounds done" >&2
done
for i in 1 2 3 4 5; do
    /usr/bin/time -f "adaptive %U %S %e %M" -a -o year.txt "$binary" --policy adaptive --days 365 --quiet --out year --force >/dev/null
done
for i in $(seq 1 11); do
    /usr/bin/time -f "start %U %S %e %M" -a -o start.txt "$binary" --policy adaptive --devices 1 --days 1 --quiet --out start --force >/dev/null
done
python3 "$bgbench_root/Scripts/python/run_costs_block.py" "$work" "$start" "$(load_now)" "$rounds" > block.md
cat block.md
if [ "$write" = 1 ]; then write_block README.md run-costs < block.md; fi
