#!/usr/bin/env bash
# The GNU parallel recipe against one process (issue 14): Scripts/cluster/parallel.sh runs
# 4 shards on this machine's cores and merges them; the same run in one process must give
# the same report folder under `bgbench check --exact`.
#
#   Benchmarks/parallel-test.sh                  # with .build/release/bgbench
#   Benchmarks/parallel-test.sh --binary PATH    # any bgbench executable
#   Benchmarks/parallel-test.sh --keep DIR       # keep the reports
#
# Installs GNU parallel from apt when it is missing (as root). Exit 0 when the merged
# folder equals the single run, 1 when it differs or a shard fails, 2 on misuse.
set -euo pipefail

. "$(dirname "$0")/recipe-options.sh"
if ! command -v parallel >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq parallel >/dev/null
fi
work=${keep:-$(mktemp -d /tmp/bgbench-parallel.XXXXXX)}
mkdir -p "$work"
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT

# shellcheck disable=SC2054 # fixed,adaptive is one value
options=(--days 30 --devices 400 --policy fixed,adaptive --seed 7)
status=0
"$top/Scripts/cluster/parallel.sh" --shards 4 --bgbench "$binary" --run-dir "$work/sharded" -- run "${options[@]}" \
    >"$work/parallel.txt" 2>&1 || status=$?
cat "$work/parallel.txt"
[ "$status" = 0 ] || { echo "error: Scripts/cluster/parallel.sh failed (exit $status)" >&2; echo "0 passed, 1 failed"; exit 1; }
"$binary" run "${options[@]}" --quiet --out "$work/single" >/dev/null
if "$binary" check --exact --baseline "$work/single" --current "$work/sharded/merged"; then
    echo "1 passed, 0 failed"
else
    echo "0 passed, 1 failed"
    exit 1
fi
