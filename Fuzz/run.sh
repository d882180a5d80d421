#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/README.md) and runs each for SECONDS (default 900:
# 15 minutes) on seed corpora from Datasets/, Benchmarks/baseline/ and Fuzz/corpus/.
#
#   Fuzz/run.sh [--seconds N] [TARGET...]      targets: scenario set trace lsapp report
#
# A finding (crash, leak, timeout) leaves its input in Fuzz/findings/TARGET/ and the run
# exits 1; turn each into a regression test (Tests/BGBenchTests/Input/InputHardeningTests.swift).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=900
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds=$2; shift 2 ;;
        scenario|set|trace|lsapp|report) targets+=("$1"); shift ;;
        *) echo "usage: Fuzz/run.sh [--seconds N] [scenario|set|trace|lsapp|report]..." >&2; exit 64 ;;
    esac
done
[ ${#targets[@]} -gt 0 ] || targets=(scenario set trace lsapp report)

# Coverage instrumentation and AddressSanitizer on every module; libFuzzer without its own
# main (SwiftPM gives the executable its entry point, which starts libFuzzer's driver).
runtime=$(ls "$(dirname "$(readlink -f "$(command -v swiftc)")")"/../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a | head -1)
BGBENCH_FUZZ=1 swift build -c release --build-path .build/fuzz --product bgbench-fuzz \
    -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp,indirect-calls \
    -Xswiftc -enable-testing -Xlinker "$runtime" -Xlinker -lstdc++
binary=.build/fuzz/release/bgbench-fuzz

# A Swift trap is the finding: its message, not the backtracer's own run under ASan.
export SWIFT_BACKTRACE=enable=no
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for target in "${targets[@]}"; do
    corpus=$work/$target
    mkdir -p "$corpus" "Fuzz/findings/$target"
    case $target in
        scenario) cp Datasets/scenarios/*.json Benchmarks/baseline/*/scenario.json "$corpus/" 2>/dev/null || true
                  for f in Benchmarks/baseline/*/scenario.json; do cp "$f" "$corpus/$(basename "$(dirname "$f")").json"; done ;;
        trace) cp Datasets/traces/sample.csv "$corpus/" ;;
        lsapp) cp Datasets/traces/lsapp-sample.tsv "$corpus/" ;;
        report) for f in Benchmarks/baseline/*/*.csv; do head -c 65536 "$f" > "$corpus/$(basename "$(dirname "$f")")-$(basename "$f")"; done ;;
    esac
    [ -d "Fuzz/corpus/$target" ] && cp Fuzz/corpus/"$target"/* "$corpus/" 2>/dev/null || true
    echo "== $target: $seconds s"
    if ! BGBENCH_FUZZ_TARGET=$target "$binary" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="Fuzz/findings/$target/" 2>&1 | tee "$work/$target.log" \
        | grep -E "^#[0-9]+[[:space:]]+(INITED|DONE)|stat::|ERROR|SUMMARY"; then
        :
    fi
    if grep -q "ERROR: \|SUMMARY: " "$work/$target.log"; then status=1; fi
done
exit $status
