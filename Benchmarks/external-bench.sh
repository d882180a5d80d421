#!/usr/bin/env bash
# The bridge's cost (Benchmarks/README.md, "External policies"): the built-in fixed, the
# Python fixed of python/examples/fixed_policy.py (the same results, so the difference is
# the bridge) and a Python policy that hears opens (python/examples/opens_policy.py), on
# the default scenario, one thread (one process) and two, each unbatched and batched
# (--batch: a block's devices in frames, docs/protocol.md "Batching"); then Python's own
# share of a message, timed without bgbench or a pipe (serve() over an in-memory stream).
# Usage: Benchmarks/external-bench.sh [BINARY] [DEVICES] [DAYS]
set -euo pipefail
bgbench=${1:-.build/release/bgbench}
devices=${2:-2000}
days=${3:-30}
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fixed_py='policies.external.command=["python3","python/examples/fixed_policy.py"]'
opens_py='policies.external.command=["python3","python/examples/opens_policy.py"]'
fixed_py_batch='policies.external.command=["python3","python/examples/fixed_policy.py","--batch"]'
opens_py_batch='policies.external.command=["python3","python/examples/opens_policy.py","--batch"]'

run() {  # NAME THREADS ARGS...: one line with the run's device-days/s, wall s and its summary's rates
    local name=$1 threads=$2
    shift 2
    "$bgbench" --quiet --days "$days" --devices "$devices" --threads "$threads" --out "$out/$name-$threads" "$@" >/dev/null
    python3 - "$out/$name-$threads" "$name" "$threads" "$devices" "$days" <<'PY'
import csv, json, sys
folder, name, threads, devices, days = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
run = json.load(open(folder + "/run.json"))["execution"]
row = next(r for r in csv.DictReader(open(folder + "/summary.csv")) if r["archetype"] == "all")
per_day = {k: float(row[k]) for k in ("opens_per_day", "runs_per_day", "denied_per_day")}
print(f"{name:10s} threads={threads} wall_s={run['wall_seconds']:.2f} device_days_per_s={run['device_days_per_second']:.0f} "
      + " ".join(f"{k}={v:.2f}" for k, v in per_day.items()))
PY
}

echo "bgbench external bench: $devices devices x $days days, default scenario, load $(cut -d' ' -f1-3 /proc/loadavg)"
for threads in 1 2; do
    run fixed "$threads" --policy fixed
    run fixed-py "$threads" --allow-external --policy external --set "$fixed_py"
    run opens-py "$threads" --allow-external --policy external --set "$opens_py"
    run fixed-py-b "$threads" --allow-external --policy external --set "$fixed_py_batch"
    run opens-py-b "$threads" --allow-external --policy external --set "$opens_py_batch"
done

# Python's share: serve() answering run_started messages from memory, no pipe, no bgbench.
PYTHONPATH=python/src python3 - <<'PY'
import io, json, sys, time
sys.path.insert(0, "python/examples")
from fixed_policy import Fixed
n = 200_000
view = '"battery":0.87,"charging":false,"low_power":false,"network":"wifi","screen_on":false,"foreground":false'
lines = ['{"type":"hello","protocol":1,"bgbench":"0.1.0"}',
         '{"type":"start","seq":0,"device":0,"now":0,"horizon":2592000000000,"platform":"ios-bgtask","seed":[1,2,3,4],' + view + '}']
lines += ['{"type":"run_started","seq":%d,"device":0,"now":%d,%s}' % (k, k * 900_000_000 + 17, view) for k in range(1, n)]
data = ("\n".join(lines) + "\n").encode()
policy = Fixed(900_000_000)
start = time.perf_counter()
policy.serve(io.BytesIO(data), io.BytesIO())
seconds = time.perf_counter() - start
print(f"python serve() alone: {seconds / n * 1e6:.1f} us a message ({n} messages from memory)")
PY
