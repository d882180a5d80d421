#!/usr/bin/env bash
# The runs whose reports are the regression baseline in Benchmarks/baseline/: writes
# OUT/r1 and OUT/default with a bgbench executable (default: .build/release/bgbench).
# .ci/run reruns them into a temporary folder and compares with `bgbench check --exact`;
# Benchmarks/README.md says how to update the baseline. The runs start in the checkout,
# so run.json's scenario_file is the same relative path wherever they are made.
set -euo pipefail
out=${1:?usage: Benchmarks/make-baseline.sh OUT_DIR [BGBENCH]}
bgbench=${2:-.build/release/bgbench}
case $out in /*) ;; *) out=$PWD/$out ;; esac
case $bgbench in /*) ;; */*) bgbench=$PWD/$bgbench ;; esac
cd "$(dirname "$0")/.."

"$bgbench" --quiet --scenario Datasets/scenarios/r1.json --policy fixed,none --days 5 --devices 50 \
    --warmup-days 1 --per-device --out "$out/r1" >/dev/null
"$bgbench" --quiet --policy adaptive,fixed,oracle --days 5 --devices 50 \
    --per-device --baseline-policy fixed --out "$out/default" >/dev/null
