#!/usr/bin/env bash
# The estimate against what a job takes (docs/limits.md, "Memory" and "Before a job
# starts"): for each job size, `bgbench ... --estimate` (memory, files, time from the
# calibration), then the job itself under `/usr/bin/time -f "%e %M %U %S"` (wall seconds,
# peak RSS, user and system CPU seconds) and `du` of its folder. Prints one markdown row
# per size: estimated and measured memory, files and time, and the ratios. The estimate's
# time is CPU time per worker (the calibration is timed in CPU time and the job's workers
# are assumed to have a core each), so it is compared with the job's user + system CPU
# time divided by its workers (`Fleet.workers`: the cores, at most one per block of 64
# devices), and, apart, with the wall time, which a loaded machine stretches. The CPU
# time includes the job's own calibration (a few tenths of a second) and writing its
# files. docs/limits.md's tables come from its output.
#
#   Benchmarks/estimate-accuracy.sh [--binary B] [--quick]
#
# --binary B  the bgbench measured (default .build/release/bgbench)
# --quick     only the sizes that take seconds (no 36,500-day runs under 12 policies)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
binary=$top/.build/release/bgbench quick=0
while [ $# -gt 0 ]; do
    case $1 in
        --binary) binary=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
        --quick) quick=1; shift ;;
        *) echo "error: unknown argument '$1': expected --binary B or --quick" >&2; exit 64 ;;
    esac
done
[ -x "$binary" ] || { echo "error: no bgbench at '$binary'" >&2; exit 66; }
[ -x /usr/bin/time ] || { echo "error: /usr/bin/time is missing (apt-get install time)" >&2; exit 69; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

sizes=(
    "1 × 365 days, 1 policy|--devices 1 --days 365 --policy fixed"
    "1 × 365 days, 12 policies|--devices 1 --days 365 --policy all"
    "1 × 3,650 days, 1 policy|--devices 1 --days 3650 --policy fixed"
    "1 × 3,650 days, 12 policies|--devices 1 --days 3650 --policy all"
    "1,000 × 365 days, 2 policies, 0 traced|--devices 1000 --days 365 --policy fixed,adaptive"
    "1,000 × 365 days, 2 policies, 100 traced|--devices 1000 --days 365 --policy fixed,adaptive --trace-devices 100"
    "1,000 × 30 days, 12 policies, per device|--devices 1000 --days 30 --policy all --per-device"
)
if [ "$quick" = 0 ]; then
    sizes+=(
        "1 × 36,500 days, 1 policy|--devices 1 --days 36500 --policy fixed"
        "1 × 36,500 days, 12 policies|--devices 1 --days 36500 --policy all"
    )
fi

# "about 1.2 GB" → bytes; "about 3.4 s" / "12 min" / "2.5 h" → seconds.
bytes() { awk -v v="$1" -v u="$2" 'BEGIN { m = (u == "TB") ? 1e12 : (u == "GB") ? 1e9 : (u == "MB") ? 1e6 : (u == "kB") ? 1e3 : 1; printf "%.0f", v * m }'; }
seconds() { awk -v v="$1" -v u="$2" 'BEGIN { m = (u == "min") ? 60 : (u == "h") ? 3600 : (u == "days") ? 86400 : 1; printf "%.2f", v * m }'; }

cores=$(nproc)
echo "Benchmarks/estimate-accuracy.sh with $("$binary" --version | head -1), $cores cores, $(date -u +%F), $(uptime | sed 's/.*load/load/')"
echo
echo "| job | memory est. | memory measured | ratio | files est. | files measured | ratio | time est. | CPU time / workers | ratio | wall time | ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for entry in "${sizes[@]}"; do
    name=${entry%%|*} args=${entry#*|}
    # shellcheck disable=SC2086
    line=$("$binary" $args --estimate --out "$work/r")
    read -r mem_v mem_u < <(sed -E 's/.*memory about ([0-9.]+) ([A-Za-z]+).*/\1 \2/' <<<"$line")
    read -r out_v out_u < <(sed -E 's/.*files about ([0-9.]+) ([A-Za-z]+).*/\1 \2/' <<<"$line")
    read -r t_v t_u < <(sed -E 's/.*, about ([0-9.]+) (s|min|h|days),.*/\1 \2/' <<<"$line")
    est_mem=$(bytes "$mem_v" "$mem_u") est_out=$(bytes "$out_v" "$out_u") est_t=$(seconds "$t_v" "$t_u")
    rm -rf "$work/r"
    # shellcheck disable=SC2086
    /usr/bin/time -o "$work/time" -f "%e %M %U %S" "$binary" $args --quiet --yes --out "$work/r" >/dev/null
    read -r wall kb user sys <"$work/time"
    files=$(du -sb "$work/r" | cut -f1)
    # The job's workers (Fleet.workers): the cores, at most one per block of 64 devices.
    devices=$(sed -E 's/.*--devices ([0-9]+).*/\1/' <<<"$args")
    workers=$(( (devices + 63) / 64 < cores ? (devices + 63) / 64 : cores ))
    awk -v n="$name" -v em="$est_mem" -v mm="$((kb * 1024))" -v eo="$est_out" -v mo="$files" -v et="$est_t" -v mt="$wall" \
        -v cpu="$(awk -v u="$user" -v s="$sys" -v w="$workers" 'BEGIN { printf "%.2f", (u + s) / w }')" -v w="$workers" '
        function h(b) { return b >= 1e9 ? sprintf("%.2g GB", b / 1e9) : b >= 1e6 ? sprintf("%.3g MB", b / 1e6) : sprintf("%.3g kB", b / 1e3) }
        BEGIN { printf "| %s | %s | %s | %.2f | %s | %s | %.2f | %.3g s | %.3g s (%d) | %.2f | %.3g s | %.2f |\n", n, h(em), h(mm), em / mm, h(eo), h(mo), eo / mo, et, cpu, w, et / cpu, mt, et / mt }'
    rm -rf "$work/r"
done
echo
echo "(load at the end: $(uptime | sed 's/.*load average: //'); the time columns are loose on a loaded machine)"
