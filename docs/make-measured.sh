#!/usr/bin/env bash
# Regenerates the "Measured" paragraphs that quote runs, each between its markers:
# - the messaging preset's in Datasets/README.md (messaging-measured): the preset, 200
#   devices × 28 days, seed 1, `push`, `fixed` and `none`; then `push` with 30 % of pushes
#   lost, with its refresh fallback and without it (`policies.push.fallback_interval=0s`);
# - `push`'s in docs/policies.md (push-measured): the default scenario and R1, `push`,
#   `adaptive` and `oracle`, 200 devices × 42 days (14 warm-up), seed 5.
# Never edit the paragraphs by hand. Every figure is a simulated metric at a fixed seed, so
# `--check` regenerates them and fails (exit 1) when the committed ones differ (.ci/run,
# through docs/check-generated.sh). Usage, from any folder:
#
#     docs/make-measured.sh [--binary PATH] [--check]    # a few seconds
#
# --binary PATH  the bgbench to run (default: $BIN when set, else bgbench on the PATH).
# Needs python3 (standard library only; Scripts/python/measured_blocks.py).
set -eu
source "$(dirname "$0")/../Benchmarks/lib.sh"
binary_arg=${BIN:-} check=0
while [ $# -gt 0 ]; do
    case "$1" in
        *) common_option "--binary --check" "$@" || { echo "usage: docs/make-measured.sh [--binary PATH] [--check]" >&2; exit 64; }; shift "$consumed" ;;
    esac
done
resolve_binary "$binary_arg"
BIN=$binary
OUT=$(mktemp -d "${TMPDIR:-/tmp}/bgbench-measured.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
common="--scenario messaging --days 28 --devices 200 --seed 1 --quiet"
# shellcheck disable=SC2086
"$BIN" $common --policy push,fixed,none --out "$OUT/base" >/dev/null
# shellcheck disable=SC2086
"$BIN" $common --policy push --set push.drop_probability=0.3 --out "$OUT/lossy" >/dev/null
# shellcheck disable=SC2086
"$BIN" $common --policy push --set push.drop_probability=0.3 --set policies.push.fallback_interval=0s \
    --out "$OUT/nofallback" >/dev/null
bounds="--policy push,adaptive,oracle --days 42 --warmup-days 14 --devices 200 --seed 5 --quiet"
# shellcheck disable=SC2086
"$BIN" $bounds --out "$OUT/pushdefault" >/dev/null
# shellcheck disable=SC2086
"$BIN" $bounds --scenario r1 --out "$OUT/pushr1" >/dev/null
python3 "$bgbench_root/Scripts/python/measured_blocks.py" "$OUT"
write_block Datasets/README.md messaging-measured < "$OUT/messaging-measured.md"
write_block docs/policies.md push-measured < "$OUT/push-measured.md"
