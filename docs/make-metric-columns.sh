#!/bin/sh
# Writes the summary.csv column list of Reports/README.md (between the metric-columns
# markers) from the metric table, Sources/BGBench/Metrics/MetricTable.swift. Run after
# changing the table; MetricTableTests fails while the README is stale.
set -e
cd "$(dirname "$0")/.."
BGBENCH_WRITE_README=1 swift test -c release -Xswiftc -enable-testing --filter MetricTableTests/readmeColumnListIsGenerated
