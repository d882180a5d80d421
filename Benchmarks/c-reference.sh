#!/usr/bin/env bash
# bgbench against the C reference implementation of R1 (issue 15, target 1: R1 `fixed`
# on one thread at least as fast as the C program), measured side by side in one sitting
# and written as README.md's block between <!-- c-reference:begin --> and
# <!-- c-reference:end --> ("Performance"). The C program (r1.c, hand-written, no part of
# the project; by default ../shared/reference/r1.c beside the checkout) is built with
# `gcc -O3 -march=native -o r1 r1.c -lm` into a temporary folder. Two comparisons:
#   1. the simulation alone: `bgbench bench --workloads r1/fixed --threads 1 --repeats 1`
#      (R1 `fixed`, 20,000 devices × 365 days, start-up and report files not counted) and
#      `./r1 --devices 20000 --days 365 --seed 1` (its own wall_s), alternating, three of
#      each, the order swapped every round: the medians' device-days/s and their ratio;
#   2. whole processes, paired: `bgbench --scenario r1 --policy fixed --devices 5000
#      --days 365 --threads 1` (reports written) and `./r1 --devices 5000 --days 365
#      --seed 1`, one right after the other, PAIRS times (the order swapped every pair),
#      wall medians (GNU time) and the ratio of C's time to bgbench's (bgbench's share of
#      C's rate).
#
#   Benchmarks/c-reference.sh [--binary PATH] [--source r1.c] [--pairs N] [--write]
#
# --binary PATH  the bgbench measured (default: bgbench on the PATH)
# --source FILE  the C program (default: ../shared/reference/r1.c from the checkout)
# --pairs N      whole-process pairs (default 7)
# --write        rewrite README.md's block (else print it)
# Works from any folder; about 3 minutes on 2 cores. Needs gcc and GNU time.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
binary_arg='' source_file=$bgbench_root/../shared/reference/r1.c pairs=7 write=0
while [ $# -gt 0 ]; do
    case "$1" in
        --source) source_file=$2; shift 2 ;;
        --pairs) pairs=$2; shift 2 ;;
        *) common_option "--binary --write" "$@" || { echo "usage: Benchmarks/c-reference.sh [--binary PATH] [--source r1.c] [--pairs N] [--write]" >&2; exit 64; }; shift "$consumed" ;;
    esac
done
resolve_binary "$binary_arg"
[ -r "$source_file" ] || { echo "error: no C reference at '$source_file': give --source r1.c" >&2; exit 66; }
command -v gcc >/dev/null || { echo "error: needs gcc: apt-get install -y gcc" >&2; exit 69; }
setup_work time
gcc -O3 -march=native -o "$work/r1" "$source_file" -lm

start="$(sitting)"
# 1. The simulation alone: bench (one repeat a call) and the C program, alternating, three
#    times each, the order swapped every round.
bench_run() { "$binary" bench --workloads r1/fixed --threads 1 --repeats 1 --csv "$work/bench$1.csv" >/dev/null; }
c_sim() { "$work/r1" --devices 20000 --days 365 --seed 1 --no-header | awk -F, '{ print $NF }' >> "$work/c20000.txt"; }
for i in 1 2 3; do
    if [ $((i % 2)) = 1 ]; then bench_run "$i"; c_sim; else c_sim; bench_run "$i"; fi
done
# 2. Whole processes, paired, the order swapped every pair.
bgbench_run() { /usr/bin/time -f "%e" -a -o "$work/bgbench.txt" "$binary" --scenario r1 --policy fixed --devices 5000 --days 365 --threads 1 --quiet --out "$work/run" --force >/dev/null; }
c_run() { /usr/bin/time -f "%e" -a -o "$work/c.txt" "$work/r1" --devices 5000 --days 365 --seed 1 >/dev/null; }
for i in $(seq 1 "$pairs"); do
    if [ $((i % 2)) = 1 ]; then bgbench_run; c_run; else c_run; bgbench_run; fi
done
end_load=$(load_now)

python3 "$bgbench_root/Scripts/python/c_reference_block.py" "$work" "$start" "$end_load" "$pairs" > "$work/block.md"
cat "$work/block.md"
if [ "$write" = 1 ]; then write_block README.md c-reference < "$work/block.md"; fi
