#!/usr/bin/env bash
# Issue 14 point 9 and point 4's merge figures, measured with GNU time:
#   1. CPU cost of sharding: a run of about 10^7 device-days (27,400 devices × 365 days,
#      adaptive, one thread) in one process, then as 4 shards plus the merge; the shards'
#      and the merge's user + system seconds against the single run's, and check --exact.
#   2. Merging many shards: the 100,000-device year-long adaptive run as N shards (default
#      1000, two at a time), then `bgbench merge`: its wall time and peak memory, and the
#      size of one shard folder and of its shard.state.
#
#   Benchmarks/shard-bench.sh [--binary PATH] [--shards N] [--skip-cpu] [--skip-merge]
set -euo pipefail
cd "$(dirname "$0")/.."
binary=.build/release/bgbench shards=1000 cpu=1 merge=1
while [ $# -gt 0 ]; do
    case "$1" in
        --binary) binary=$2; shift 2 ;;
        --shards) shards=$2; shift 2 ;;
        --skip-cpu) cpu=0; shift ;;
        --skip-merge) merge=0; shift ;;
        *) echo "usage: Benchmarks/shard-bench.sh [--binary PATH] [--shards N] [--skip-cpu] [--skip-merge]" >&2; exit 64 ;;
    esac
done
case $binary in /*) ;; *) binary=$PWD/$binary ;; esac
[ -x "$binary" ] || { echo "error: no bgbench at $binary: build it with 'swift build -c release'" >&2; exit 66; }
[ -x /usr/bin/time ] || { echo "error: needs GNU time (/usr/bin/time): apt-get install -y time" >&2; exit 69; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cputime() { awk '{ print $1 + $2 }' "$1"; }

if [ "$cpu" = 1 ]; then
    args=(--policy adaptive --days 365 --devices 27400 --threads 1 --quiet)
    /usr/bin/time -f "%U %S %e %M" -o "$work/single.time" "$binary" run "${args[@]}" --out "$work/single" >/dev/null
    total=0
    for k in 0 1 2 3; do
        /usr/bin/time -f "%U %S %e %M" -o "$work/shard$k.time" "$binary" run "${args[@]}" --shard "$k/4" --out "$work/shards/$k" >/dev/null
        total=$(awk -v t="$total" -v c="$(cputime "$work/shard$k.time")" 'BEGIN { print t + c }')
    done
    /usr/bin/time -f "%U %S %e %M" -o "$work/merge4.time" "$binary" merge --out "$work/merged4" "$work/shards" >/dev/null
    "$binary" check --exact --baseline "$work/single" --current "$work/merged4" | tail -n 1
    single=$(cputime "$work/single.time") merge4=$(cputime "$work/merge4.time")
    awk -v s="$single" -v t="$total" -v m="$merge4" 'BEGIN {
        printf "10^7 device-days: single process %.1f s CPU; 4 shards %.1f s + merge %.2f s = %.1f s CPU: %+.1f %%\n", s, t, m, t + m, (t + m - s) / s * 100 }'
fi

if [ "$merge" = 1 ]; then
    args=(--policy adaptive --days 365 --devices 100000 --threads 1 --quiet)
    start=$(date +%s)
    seq 0 $((shards - 1)) | xargs -P 2 -I K "$binary" run "${args[@]}" --shard "K/$shards" --out "$work/many/K" >/dev/null
    echo "$shards shards of 100,000 devices × 365 days simulated in $(( $(date +%s) - start )) s wall (2 at a time)"
    /usr/bin/time -f "%e %M" -o "$work/merge.time" "$binary" merge --out "$work/merged" "$work/many" >/dev/null
    read -r seconds kb < "$work/merge.time"
    echo "merge of $shards shards: $seconds s wall, $((kb / 1024)) MB peak"
    echo "one shard folder: $(du -sk "$work/many/0" | cut -f1) KB, its shard.state $(( $(stat -c %s "$work/many/0/shard.state") / 1024 )) KB; the merged folder $(du -sk "$work/merged" | cut -f1) KB"
fi
