#!/usr/bin/env bash
# Regenerates README.md's performance table (between <!-- perf-table:begin --> and
# <!-- perf-table:end -->) from bench CSVs (`bgbench bench --csv FILE`, and optionally
# `bgbench bench --memory --csv FILE`): one row per workload and thread count, in the
# files' order; and issue 15's targets 2 to 4 judged on the same rows (between
# <!-- perf-targets:begin --> and <!-- perf-targets:end -->; only from a CSV of today's
# format). Never edit either by hand; the C reference's figure is Benchmarks/c-reference.sh's
# block. Usage, from any folder:
#
#     Benchmarks/make-perf-table.sh Benchmarks/results-DATE.csv [Benchmarks/memory-DATE.csv]
#
# Reads both bench CSV formats (Scripts/python/perf_table.py). Needs python3 (standard
# library only). The CSV paths are written into the blocks as given: run it from the
# checkout with paths relative to it.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
[ $# -ge 1 ] || { echo "usage: Benchmarks/make-perf-table.sh BENCH.csv [MORE.csv ...]" >&2; exit 64; }
for f in "$@"; do [ -r "$f" ] || { echo "error: cannot read bench CSV '$f'" >&2; exit 66; }; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$bgbench_root/Scripts/python/perf_table.py" "$work" "$@"
write_block README.md perf-table < "$work/perf-table.md"
if [ -f "$work/perf-targets.md" ]; then write_block README.md perf-targets < "$work/perf-targets.md"; fi
