#!/usr/bin/env bash
# Regenerates docs/policies.md's paragraph on how far to trust one seed's intervals
# ("The frontier", between <!-- trust-figures:begin --> and <!-- trust-figures:end -->):
# two replicated frontiers of 200 devices × 21 days × 20 seeds, their replications.csv and
# frontier-matched.csv read by Scripts/python/trust_figures.py. Every figure is a simulated
# metric at fixed seeds, so the paragraph is deterministic: `--check` regenerates it and
# fails (exit 1) when the committed one differs (.ci/run, through docs/check-generated.sh).
#
#   docs/make-trust-figures.sh [--binary PATH] [--check]
#
# --binary PATH  the bgbench to run (default: bgbench on the PATH). Works from any folder;
# about 15 s of CPU. Needs python3 (standard library only).
set -euo pipefail
source "$(dirname "$0")/../Benchmarks/lib.sh"
binary_arg='' check=0
while [ $# -gt 0 ]; do
    case "$1" in
        *) common_option "--binary --check" "$@" || { echo "usage: docs/make-trust-figures.sh [--binary PATH] [--check]" >&2; exit 64; }; shift "$consumed" ;;
    esac
done
resolve_binary "$binary_arg"
setup_work
common="--devices 200 --days 21 --replications 20"
arms="--policy fixed,kde --knob fixed=15m,1h,4h --knob kde=0.05,0.2"
matched="--policy fixed,usage --knob fixed=15m,4h --knob usage=1,4,6"
# shellcheck disable=SC2086
"$binary" frontier $arms $common --quiet --out "$work/arms" >/dev/null
# shellcheck disable=SC2086
"$binary" frontier $matched $common --quiet --out "$work/matched" >/dev/null
python3 "$bgbench_root/Scripts/python/trust_figures.py" "$work/arms" "$work/matched" \
    "bgbench frontier $arms $common" "bgbench frontier $matched $common" > "$work/block.md"
[ "$check" = 1 ] || cat "$work/block.md"
write_block docs/policies.md trust-figures < "$work/block.md"
