#!/usr/bin/env bash
# The speed gate a noisy machine cannot fool: counts the instructions (valgrind's
# callgrind) of small fixed workloads, one thread each, and compares every count with the
# committed baseline, Benchmarks/instructions.csv. More than 2 % more instructions than
# the baseline in any workload fails (exit 1), naming it. CI runs it (.ci/run).
#
#   Benchmarks/instructions.sh [--binary B]            # compare with the baseline
#   Benchmarks/instructions.sh [--binary B] --update   # rewrite the baseline (the commit says why)
#   Benchmarks/instructions.sh --binary B --baseline FILE --workload NAME='ARGS' [--workload ...] [--update]
#
# --binary B       the executable counted (default .build/release/bgbench)
# --baseline FILE  the baseline CSV, `workload,instructions` (default Benchmarks/instructions.csv)
# --workload NAME='ARGS'  count `B ARGS` (ARGS split at spaces, run in an empty folder)
#                  instead of the built-in workloads; repeat it for more (your own policy)
# --update         write the counts to the baseline instead of comparing
#
# The counts are pinned to what the code does, not to the machine: Swift's per-process
# hash seed is fixed (SWIFT_DETERMINISTIC_HASHING), glibc picks its baseline x86-64 (SSE2)
# variants of memcpy, strlen, exp, log, ... on any CPU (GLIBC_TUNABLES, below), and each
# workload runs on one CPU, without address randomisation, with the same small
# environment, in a folder whose path has the same length (`pinned`, below).
# Benchmarks/README.md ("Instructions: the CI speed gate") says why and what is left.
# Exit 0 when no workload exceeds its baseline by more than 2 %, 1 when one does (or has no
# baseline row), 64 on misuse, 66 when the binary or the baseline is missing, 69 without
# valgrind, 70 when a workload fails.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
binary=$top/.build/release/bgbench baseline=$top/Benchmarks/instructions.csv update=0
names=() arguments=()
while [ $# -gt 0 ]; do
    case $1 in
        --binary) [ $# -ge 2 ] || { echo "error: '--binary' needs a file" >&2; exit 64; }; binary=$2; shift 2 ;;
        --baseline) [ $# -ge 2 ] || { echo "error: '--baseline' needs a file" >&2; exit 64; }; baseline=$2; shift 2 ;;
        --workload)
            [ $# -ge 2 ] && [[ $2 == ?*=* ]] || { echo "error: '--workload' needs NAME='ARGS'" >&2; exit 64; }
            names+=("${2%%=*}"); arguments+=("${2#*=}"); shift 2 ;;
        --update) update=1; shift ;;
        -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown option '$1' for Benchmarks/instructions.sh" >&2; exit 64 ;;
    esac
done
case $binary in /*) ;; *) binary=$PWD/$binary ;; esac
[ -x "$binary" ] || { echo "error: '$binary' is not an executable file (swift build -c release)" >&2; exit 66; }
command -v valgrind >/dev/null || { echo "error: valgrind is missing (apt-get install -y valgrind)" >&2; exit 69; }
[ "$update" = 1 ] || [ -f "$baseline" ] || { echo "error: no baseline '$baseline' (make one with --update)" >&2; exit 66; }

# glibc's ifunc choices and cache-size thresholds, fixed: every CPU feature beyond SSE2
# and every preference bit off, the cache sizes and copy thresholds set. Names as glibc
# 2.36 accepts them (sysdeps/x86/cpu-tunables.c; check with `ld.so --list-diagnostics`).
hwcaps=-AVX,-AVX2,-AVX512F,-AVX512CD,-AVX512BW,-AVX512DQ,-AVX512ER,-AVX512PF,-AVX512VL
hwcaps+=,-FMA,-FMA4,-BMI1,-BMI2,-LZCNT,-MOVBE,-POPCNT,-SSSE3,-SSE4_1,-SSE4_2,-ERMS,-RTM
hwcaps+=,-XSAVE,-XSAVEC,-Fast_Rep_String,-Fast_Copy_Backward,-Fast_Unaligned_Load
hwcaps+=,-Fast_Unaligned_Copy,-Slow_BSF,-Slow_SSE4_2,-Prefer_ERMS,-Prefer_FSRM
hwcaps+=,-Prefer_No_AVX512,-Prefer_AVX2_STRCMP,-Prefer_No_VZEROUPPER,-AVX_Fast_Unaligned_Load
hwcaps+=,-MathVec_Prefer_No_AVX512,-Prefer_PMINUB_for_stringop
tunables=glibc.cpu.hwcaps=$hwcaps:glibc.cpu.x86_data_cache_size=0x8000
tunables+=:glibc.cpu.x86_shared_cache_size=0x100000:glibc.cpu.x86_non_temporal_threshold=0xc0000
tunables+=:glibc.cpu.x86_rep_movsb_threshold=0x800:glibc.cpu.x86_rep_stosb_threshold=0x800

# Every path a workload sees has the same length wherever the checkout, the binary or
# TMPDIR are: the strings a process keeps move the addresses of what it allocates next, and
# with them the metadata caches' probes (tens of thousands of instructions).
work=$(mktemp -d /tmp/bgbench-instructions.XXXXXXXX)
trap 'rm -rf "$work"' EXIT
exe=$work/$(basename "$binary")
cp "$binary" "$exe"

# Runs a command as every count is made: the same small environment, Swift's hash seed
# fixed, glibc pinned, no address-space randomisation (the Swift runtime's type metadata
# caches hash addresses: with it, counts moved by up to 56,000 instructions), and one CPU,
# so the process sees one core whatever the machine has (`merge` then works on one thread:
# on two, the split of its work between threads moved its count by 600,000).
cpu=$(awk '/^Cpus_allowed_list/ { split($2, first, /[,-]/); print first[1] }' /proc/self/status)
pinned() {
    env -i PATH=/usr/bin:/bin HOME="$PWD" LC_ALL=C SWIFT_DETERMINISTIC_HASHING=1 GLIBC_TUNABLES="$tunables" \
        taskset -c "$cpu" setarch "$(uname -m)" -R "$@"
}

# The built-in workloads: 365 days, seed 1, one thread, the reports written (a whole run,
# start-up included). `merge` counts `bgbench merge` of four shards run beforehand.
if [ ${#names[@]} -eq 0 ]; then
    names=(r1/fixed default/adaptive default/nhpp merge)
    arguments=(
        "--scenario r1 --policy fixed --days 365 --devices 100 --seed 1 --threads 1 --quiet --out out"
        "--policy adaptive --days 365 --devices 40 --seed 1 --threads 1 --quiet --out out"
        "--policy nhpp --days 365 --devices 20 --seed 1 --threads 1 --quiet --out out"
        "merge --quiet --out merged $work/shards"
    )
    for k in 0 1 2 3; do
        (cd "$work" && pinned "$exe" --policy fixed,adaptive --days 30 --devices 1000 --seed 1 --per-device \
            --quiet --shard $k/4 --out "shards/$k" >/dev/null)
    done
fi

# The instructions of `binary ARGS` run under callgrind in an empty folder. Valgrind runs
# one thread at a time; `--fair-sched` hands the CPU over in a fixed order (before the run
# was pinned to one CPU, it narrowed R1's spread over calls from 56,000 to 11,000).
count() {
    local folder=$work/run
    rm -rf "$folder" && mkdir "$folder"
    # shellcheck disable=SC2086 # ARGS are split at spaces on purpose
    if ! (cd "$folder" && pinned valgrind --tool=callgrind --fair-sched=yes --callgrind-out-file="$work/callgrind.out" \
            "$exe" $1 >"$work/log" 2>&1); then
        echo "error: workload '$2' failed: $binary $1" >&2
        tail -n 20 "$work/log" >&2
        exit 70
    fi
    awk '$1 == "totals:" { print $2 }' "$work/callgrind.out"
}

declare -A counts
for i in "${!names[@]}"; do
    start=$SECONDS
    counts[${names[$i]}]=$(count "${arguments[$i]}" "${names[$i]}")
    printf '%-20s %15s instructions  (%d s under callgrind)\n' "${names[$i]}" "${counts[${names[$i]}]}" $((SECONDS - start))
done

if [ "$update" = 1 ]; then
    { echo "workload,instructions"; for name in "${names[@]}"; do echo "$name,${counts[$name]}"; done; } >"$baseline.new"
    mv "$baseline.new" "$baseline"
    echo "wrote $baseline: the commit that changes it says why"
    exit 0
fi

# Compare: more than 2 % more instructions fails; more than 2 % fewer is a gain the
# baseline should keep (--update), or the next regression hides in it.
failed=0
for name in "${names[@]}"; do
    base=$(awk -F, -v w="$name" 'NR > 1 && $1 == w { print $2 }' "$baseline")
    current=${counts[$name]}
    if [ -z "$base" ]; then
        echo "error: $name has no row in $baseline (add it with --update, and say why in the commit)" >&2
        failed=1
        continue
    fi
    read -r ratio verdict < <(awk -v c="$current" -v b="$base" 'BEGIN {
        r = c / b; printf "%.4f %s\n", r, (r > 1.02 ? "slower" : (r < 0.98 ? "faster" : "same")) }')
    printf '%-20s baseline %15s  current %15s  x%s  %s\n' "$name" "$base" "$current" "$ratio" "$verdict"
    case $verdict in
        slower)
            echo "error: $name: $current instructions against the baseline's $base (x$ratio, more than 2 % more)" >&2
            failed=1 ;;
        faster) echo "note: $name: x$ratio of the baseline's instructions: keep the gain with --update" ;;
    esac
done
exit $failed
