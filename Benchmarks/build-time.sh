#!/usr/bin/env bash
# How long a clean release build takes, for two commits side by side in one sitting
# (issue 23 item 8): each commit is cloned into its own folder, and then, round after
# round, each clone's .build is deleted and `swift build -c release --product bgbench` is
# timed (wall clock), the two commits alternating and the order swapped every round, so a
# machine that slows during the sitting slows both alike. Prints every time, the medians
# and the ratio current / base. A quiet machine is the caller's business: the times are
# only as good as the sitting (run nothing else meanwhile).
#
#   Benchmarks/build-time.sh                      # HEAD against HEAD~1, 3 rounds
#   Benchmarks/build-time.sh --base REV [--current REV] [--runs N] [--csv FILE]
#
# --base REV     the commit compared with (default HEAD~1)
# --current REV  the commit measured (default HEAD)
# --runs N       rounds, each one clean build of each commit (default 3; the median is
#                the middle one)
# --csv FILE     also write `commit,round,seconds` rows to FILE (not overwritten: it must
#                not exist)
# Exit 0 when every build succeeded, 1 when one failed, 64 on misuse.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
base=HEAD~1 current=HEAD runs=3 csv=
while [ $# -gt 0 ]; do
    case $1 in
        --base) [ $# -ge 2 ] || { echo "error: '--base' needs a commit" >&2; exit 64; }; base=$2; shift 2 ;;
        --current) [ $# -ge 2 ] || { echo "error: '--current' needs a commit" >&2; exit 64; }; current=$2; shift 2 ;;
        --runs)
            [ $# -ge 2 ] && [[ $2 =~ ^[1-9][0-9]?$ ]] || { echo "error: '--runs' needs a number from 1 to 99" >&2; exit 64; }
            runs=$2; shift 2 ;;
        --csv) [ $# -ge 2 ] || { echo "error: '--csv' needs a file" >&2; exit 64; }; csv=$2; shift 2 ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown option '$1' for Benchmarks/build-time.sh" >&2; exit 64 ;;
    esac
done
if [ -n "$csv" ] && [ -e "$csv" ]; then echo "error: '$csv' exists; give a new file to --csv" >&2; exit 64; fi
base_sha=$(git -C "$top" rev-parse --verify "$base^{commit}") || { echo "error: '--base $base' is not a commit" >&2; exit 64; }
current_sha=$(git -C "$top" rev-parse --verify "$current^{commit}") || {
    echo "error: '--current $current' is not a commit" >&2; exit 64
}

work=$(mktemp -d /tmp/bgbench-build-time.XXXXXXXX)
trap 'rm -rf "$work"' EXIT
for side in base current; do
    sha=${side}_sha
    git clone -q "$top" "$work/$side"
    git -C "$work/$side" checkout -q --detach "${!sha}"
done

declare -A times=([base]="" [current]="")
rows=()
for round in $(seq 1 "$runs"); do
    order="base current"
    [ $((round % 2)) = 0 ] && order="current base"
    for side in $order; do
        rm -rf "$work/$side/.build"
        start=$(date +%s.%N)
        if ! (cd "$work/$side" && swift build -c release --product bgbench > "$work/$side.log" 2>&1); then
            echo "error: the release build of $side ($(git -C "$work/$side" rev-parse --short HEAD)) failed:" >&2
            tail -20 "$work/$side.log" >&2
            exit 1
        fi
        seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
        times[$side]+="$seconds "
        sha=${side}_sha
        rows+=("${!sha},$round,$seconds")
        # The load average over the last 5 minutes as the build ends: above the core count,
        # something else ran meanwhile.
        printf 'round %d  %-7s %s  %7.1f s  (load %s)\n' "$round" "$side" "$(git -C "$work/$side" rev-parse --short HEAD)" \
            "$seconds" "$(cut -d' ' -f2 /proc/loadavg)"
    done
done

median() { tr ' ' '\n' <<< "$1" | grep . | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
mb=$(median "${times[base]}") mc=$(median "${times[current]}")
echo "clean release build (swift build -c release --product bgbench), median of $runs, $(nproc) cores:"
echo "  base    ${base_sha:0:7}  ${mb} s  (${times[base]% })"
echo "  current ${current_sha:0:7}  ${mc} s  (${times[current]% })"
echo "  ratio current / base: $(awk -v c="$mc" -v b="$mb" 'BEGIN { printf "%.3f", c / b }')"
if [ -n "$csv" ]; then
    { echo "commit,round,seconds"; printf '%s\n' "${rows[@]}"; } > "$csv"
fi
