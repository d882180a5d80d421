#!/bin/sh
# Writes the two generated lists of Reports/README.md: the summary.csv column list (between
# the metric-columns markers) from the metric table, Sources/BGBench/Metrics/MetricTable.swift,
# and the table of report files (between the report-files markers) from ReportFile.all,
# Sources/BGBench/Reports/ReportFiles.swift. Run after changing either; MetricTableTests or
# ReportFilesTests fails while the README is stale.
set -e
cd "$(dirname "$0")/.."
BGBENCH_WRITE_README=1 swift test -c release -Xswiftc -enable-testing \
    --filter 'MetricTableTests/readmeColumnListIsGenerated|ReportFilesTests/readmeFileTableIsGenerated'
