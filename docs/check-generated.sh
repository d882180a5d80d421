#!/usr/bin/env bash
# The drift check of the generated prose (issue 24 item 7): reruns every generator whose
# block is deterministic (simulated metrics at fixed seeds, counts; no timing) in its
# `--check` mode, which regenerates the block and compares it with the committed text
# without writing. Fails when any block is stale; the message names the generator to
# rerun. .ci/run runs it with the release binary the test command built.
#
#   docs/check-generated.sh [--binary PATH]
#
# --binary PATH  the bgbench to run (default: bgbench on the PATH). Works from any folder;
# under a minute on 2 cores. The blocks it checks:
#   docs/make-measured.sh       Datasets/README.md messaging-measured, docs/policies.md push-measured
#   docs/make-trust-figures.sh  docs/policies.md trust-figures
#   Scripts/leaderboard.py      README.md leaderboard (from docs/leaderboard/v1, no binary)
# The blocks that carry timings (soak-table, shard-bench, shard-cost, c-reference,
# run-costs, perf-table) are measured, not checked: their scripts say when and where.
# The policy, study, calibration and external-results tables are deterministic too but
# take minutes each (docs/make-policy-table.sh, docs/make-study-tables.sh,
# Benchmarks/calibration.sh, Scripts/external-results.py): not run here.
set -uo pipefail
docs=$(cd "$(dirname "$0")" && pwd)
binary=''
while [ $# -gt 0 ]; do
    case "$1" in
        --binary) binary=$2; shift 2 ;;
        *) echo "usage: docs/check-generated.sh [--binary PATH]" >&2; exit 64 ;;
    esac
done
args=(--check)
[ -z "$binary" ] || args+=(--binary "$binary")
passed=0 failed=0
for generator in make-measured.sh make-trust-figures.sh; do
    echo "docs/$generator ${args[*]}"
    if "$docs/$generator" "${args[@]}"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "python3 Scripts/leaderboard.py check"
if python3 "$docs/../Scripts/leaderboard.py" check; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
echo "generated docs: $passed passed, $failed failed"
[ "$failed" = 0 ]
