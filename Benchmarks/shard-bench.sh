#!/usr/bin/env bash
# Issue 14 point 9 and point 4's merge figures, measured with GNU time in one sitting:
#   1. CPU cost of sharding: a run of about 10^7 device-days (27,400 devices × 365 days,
#      adaptive, one thread) in one process, then as 4 shards plus the merge; the shards'
#      and the merge's user + system seconds against the single run's, and check --exact;
#      and what a shard costs whatever its size: a 1-device shard of 365 days (median of 5).
#   2. Merging many shards: the 100,000-device year-long adaptive run as N shards (default
#      1000, two at a time), then `bgbench merge` three times: its wall time (median) and
#      peak memory, and the size of one shard folder, of its shard.state, of the 1-device
#      shard's shard.state and of the merged folder.
# With --write (both parts only) it rewrites Benchmarks/README.md's block between
# <!-- shard-bench:begin --> and <!-- shard-bench:end --> and README.md's sentence between
# <!-- shard-cost:begin --> and <!-- shard-cost:end -->; else it prints both.
#
#   Benchmarks/shard-bench.sh [--binary PATH] [--shards N] [--skip-cpu] [--skip-merge] [--small] [--write]
#
# --small divides both fleets by 100 (a quick look at the script; never written).
# --binary PATH  the bgbench measured (default: bgbench on the PATH). Works from any
# folder; about 15 minutes on 2 cores (most of it simulating the N shards).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
binary_arg='' shards=1000 cpu=1 merge=1 write=0 scale=1
usage="usage: Benchmarks/shard-bench.sh [--binary PATH] [--shards N] [--skip-cpu] [--skip-merge] [--small] [--write]"
while [ $# -gt 0 ]; do
    case "$1" in
        --shards) shards=$2; shift 2 ;;
        --skip-cpu) cpu=0; shift ;;
        --skip-merge) merge=0; shift ;;
        --small) scale=100; shift ;;
        *) common_option "--binary --write" "$@" || { echo "$usage" >&2; exit 64; }; shift "$consumed" ;;
    esac
done
[ "$write" = 0 ] || [ "$scale" = 1 ] || { echo "error: --write writes the full-size figures only: drop --small" >&2; exit 64; }
[ "$write" = 0 ] || { [ "$cpu" = 1 ] && [ "$merge" = 1 ]; } || { echo "error: --write needs both parts: drop --skip-cpu and --skip-merge" >&2; exit 64; }
resolve_binary "$binary_arg"
setup_work time
cputime() { awk '{ print $1 + $2 }' "$1"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
start="$(sitting)"

if [ "$cpu" = 1 ]; then
    args=(--policy adaptive --days 365 --devices $((27400 / scale)) --threads 1 --quiet)
    /usr/bin/time -f "%U %S %e %M" -o "$work/single.time" "$binary" run "${args[@]}" --out "$work/single" >/dev/null
    total=0
    for k in 0 1 2 3; do
        /usr/bin/time -f "%U %S %e %M" -o "$work/shard$k.time" "$binary" run "${args[@]}" --shard "$k/4" --out "$work/shards/$k" >/dev/null
        total=$(awk -v t="$total" -v c="$(cputime "$work/shard$k.time")" 'BEGIN { print t + c }')
    done
    /usr/bin/time -f "%U %S %e %M" -o "$work/merge4.time" "$binary" merge --out "$work/merged4" "$work/shards" >/dev/null
    exact=$("$binary" check --exact --baseline "$work/single" --current "$work/merged4" | tail -n 1)
    echo "$exact"
    case $exact in
        *" is identical to baseline "*) identical="identical (${exact#*: })" ;;
        *) identical="DIFFERENT: ${exact//$work\//}" ;;
    esac
    single=$(cputime "$work/single.time") merge4=$(cputime "$work/merge4.time")
    for i in 1 2 3 4 5; do
        /usr/bin/time -f "%U %S" -o "$work/tiny.time" "$binary" run --policy adaptive --days 365 --devices 1 --threads 1 --quiet --shard 0/1 --out "$work/tiny" --force >/dev/null
        cputime "$work/tiny.time"
    done | median > "$work/tiny.median"
    tiny=$(cat "$work/tiny.median")
    cpu_line=$(awk -v s="$single" -v t="$total" -v m="$merge4" -v f="$tiny" 'BEGIN {
        printf "one process %.1f s CPU; 4 shards %.1f s + merge %.2f s = %.1f s CPU: **%+.1f %%**. What a shard adds is fixed: a 1-device shard of 365 days costs %.2f s CPU (start-up, scenario, feed, report files and shard.state; median of 5), %.2f s for 4 shards, %.1f %% of this run", s, t, m, t + m, (t + m - s) / s * 100, f, 4 * f, 4 * f / s * 100 }')
    cost=$(awk -v s="$single" -v t="$total" -v m="$merge4" 'BEGIN { printf "%+.1f", (t + m - s) / s * 100 }')
    echo "10^7 device-days: $cpu_line"
fi

if [ "$merge" = 1 ]; then
    args=(--policy adaptive --days 365 --devices $((100000 / scale)) --threads 1 --quiet)
    begin=$(date +%s)
    seq 0 $((shards - 1)) | xargs -P 2 -I K "$binary" run "${args[@]}" --shard "K/$shards" --out "$work/many/K" >/dev/null
    simulated=$(( $(date +%s) - begin ))
    echo "$shards shards of 100,000 devices × 365 days simulated in $simulated s wall (2 at a time)"
    for i in 1 2 3; do
        /usr/bin/time -f "%e %M" -o "$work/merge$i.time" "$binary" merge --out "$work/merged" --force "$work/many" >/dev/null
    done
    merge_s=$(for i in 1 2 3; do cut -d' ' -f1 "$work/merge$i.time"; done | median)
    merge_all=$(for i in 1 2 3; do cut -d' ' -f1 "$work/merge$i.time"; done | paste -sd, | sed 's/,/, /g')
    merge_mb=$(for i in 1 2 3; do cut -d' ' -f2 "$work/merge$i.time"; done | sort -g | tail -n 1 | awk '{ print int($1 / 1024) }')
    shard_kb=$(du -sk "$work/many/0" | cut -f1)
    state_kb=$(( $(stat -c %s "$work/many/0/shard.state") / 1024 ))
    merged_kb=$(du -sk "$work/merged" | cut -f1)
    echo "merge of $shards shards: $merge_s s wall (median of $merge_all), $merge_mb MB peak; one shard folder $shard_kb KB, its shard.state $state_kb KB; the merged folder $merged_kb KB"
fi

if [ "$cpu" = 1 ] && [ "$merge" = 1 ]; then
    tiny_state_kb=$(( $(stat -c %s "$work/tiny/shard.state") / 1024 ))
    cat > "$work/bench.md" <<MD
<!-- generated by Benchmarks/shard-bench.sh --write; do not edit by hand -->

\`Benchmarks/shard-bench.sh --write\` with $start at the start and $(load_now) at the end (GNU time; each command in its own process):

- **CPU cost of sharding**: the default scenario, \`adaptive\`, 27,400 devices × 365 days (10⁷ device-days), one thread: $cpu_line. The merged folder against the single run's (\`check --exact\`): $identical
- **Merging $shards shards**: the 100,000-device, 365-day \`adaptive\` run as \`--shard K/$shards\` ($simulated s to simulate them two at a time), then \`bgbench merge\` three times: **$merge_s s wall** (median of $merge_all s), **$merge_mb MB peak**.
- **Size of a shard folder**: $shard_kb KB for a shard of that run, of which shard.state is $state_kb KB; the 1-device shard's shard.state is $tiny_state_kb KB; the merged folder is $merged_kb KB.
MD
    cat > "$work/cost.md" <<MD
<!-- generated by Benchmarks/shard-bench.sh --write; do not edit by hand -->
$(awk -v c="$cost" 'BEGIN { print (c < 5 ? "Sharding costs little" : "What sharding costs") }'): 4 shards and their merge took $cost % CPU against one process at 10⁷ device-days, and merging the $shards shards of a 100,000-device year took $merge_s s and $merge_mb MB (Benchmarks/README.md, "Sharding", which names the sitting: $start).
MD
    cat "$work/bench.md" "$work/cost.md"
    if [ "$write" = 1 ]; then
        write_block Benchmarks/README.md shard-bench < "$work/bench.md"
        write_block README.md shard-cost < "$work/cost.md"
    fi
fi
