#!/usr/bin/env bash
# The Kubernetes recipe without a cluster (issue 14): validates
# Scripts/cluster/bgbench-indexed-job.yaml and bgbench-merge-job.yaml offline with
# kubernetes-validate (PyPI; kubectl needs a server), checks that a broken copy fails
# validation, then runs the shard container's command locally once per index with
# JOB_COMPLETION_INDEX set and the manifest's environment (RUN_DIR and the run's options
# replaced by a small run in a temporary folder; N = the Job's completions), then the
# merge Job's command, and compares the merged folder with the single run under
# `bgbench check --exact`.
#
#   Benchmarks/k8s-test.sh                  # with .build/release/bgbench
#   Benchmarks/k8s-test.sh --binary PATH    # any bgbench executable
#   Benchmarks/k8s-test.sh --keep DIR       # keep the reports
#
# Installs kubernetes-validate with pip when it is missing. Exit 0 when everything
# passes, 1 on a failure, 2 on misuse.
set -euo pipefail

. "$(dirname "$0")/recipe-options.sh"
jobs=$top/Scripts/cluster/bgbench-indexed-job.yaml merge=$top/Scripts/cluster/bgbench-merge-job.yaml
if ! python3 -c 'import kubernetes_validate' 2>/dev/null; then
    python3 -m pip install -q kubernetes-validate 2>/dev/null \
        || python3 -m pip install -q --break-system-packages kubernetes-validate
fi
work=${keep:-$(mktemp -d /tmp/bgbench-k8s.XXXXXX)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT
passed=0 failed=0
pass() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAILED: $*"; failed=$((failed + 1)); }

# 1. Offline validation, strict (no unknown field), against Kubernetes 1.29 (the first with
# backoffLimitPerIndex on by default) and the package's newest; a broken copy must fail.
for version in 1.29.0 default; do
    k=(-k "$version") label=$version
    [ "$version" != default ] || { k=(); label="(kubernetes-validate's newest)"; }
    if python3 -m kubernetes_validate --strict "${k[@]}" "$jobs" "$merge"; then
        pass "manifests validate against Kubernetes $label"
    else
        fail "manifests do not validate against Kubernetes $label"
    fi
done
sed 's/completionMode: Indexed/completionModes: Indexed/' "$jobs" >"$work/broken.yaml"
if python3 -m kubernetes_validate --strict --quiet "$work/broken.yaml" >/dev/null 2>&1; then
    fail "a manifest with an unknown field validates"
else
    pass "a manifest with an unknown field (completionModes) is refused"
fi

# 2. The manifests' commands and environment, read with PyYAML (kubernetes-validate's).
python3 - "$jobs" "$merge" "$work" <<'PY'
import shlex, sys, yaml
jobs, merge, work = sys.argv[1:4]
def job(path, name):
    return next(d for d in yaml.safe_load_all(open(path)) if d and d.get("kind") == "Job" and d["metadata"]["name"] == name)
def container(j):
    return j["spec"]["template"]["spec"]["containers"][0]
shards = job(jobs, "bgbench-shards")
spec = shards["spec"]
env = {e["name"]: e["value"] for e in container(shards).get("env", [])}
assert spec["completionMode"] == "Indexed", "completionMode is not Indexed"
assert str(spec["completions"]) == env["BGBENCH_SHARD_COUNT"], \
    f"completions {spec['completions']} and BGBENCH_SHARD_COUNT {env['BGBENCH_SHARD_COUNT']} differ"
with open(f"{work}/manifest.sh", "w") as out:
    out.write(f"completions={spec['completions']}\n")
    out.write("shard_env=(" + " ".join(shlex.quote(f"{k}={v}") for k, v in env.items()) + ")\n")
    out.write("shard_command=(" + " ".join(map(shlex.quote, container(shards)["command"])) + ")\n")
    out.write("merge_command=(" + " ".join(map(shlex.quote, container(job(merge, "bgbench-merge"))["command"])) + ")\n")
PY
completions='' shard_env=() shard_command=() merge_command=()
# shellcheck source=/dev/null
. "$work/manifest.sh"
pass "the Job is Indexed with completions $completions = BGBENCH_SHARD_COUNT"

# 3. The container's command once per index, as its pod would run it, then the merge's.
# shellcheck disable=SC2054 # fixed,adaptive is one value
options=(--days 30 --devices 400 --policy fixed,adaptive --seed 7)
mkdir -p "$work/bin"
ln -sf "$binary" "$work/bin/bgbench"
pod() { env -i HOME="$work" PATH="$work/bin:/usr/bin:/bin" "${shard_env[@]}" RUN_DIR="$work/runs" \
    BGBENCH_OPTIONS="run ${options[*]}" "$@"; }
ok=1
for k in $(seq 0 $((completions - 1))); do
    pod JOB_COMPLETION_INDEX="$k" "${shard_command[@]}" >"$work/pod-$k.txt" 2>&1 || { ok=0; cat "$work/pod-$k.txt"; }
done
if [ "$ok" = 1 ]; then pass "$completions pods ran their shard"; else fail "a pod failed (its output above)"; fi
again=$(pod JOB_COMPLETION_INDEX=0 "${shard_command[@]}" 2>&1)
if [ "$again" = "shard 0/$completions: already done in $work/runs/shards/0" ]; then
    pass "a pod whose shard is done keeps it"
else
    fail "a pod rerun over a done shard printed '$again'"
fi
if pod "${merge_command[@]}" >"$work/merge.txt" 2>&1; then pass "the merge Job's command ran"; else fail "the merge failed: $(tail -n 1 "$work/merge.txt")"; fi
"$binary" run "${options[@]}" --quiet --out "$work/single" >/dev/null
if "$binary" check --exact --baseline "$work/single" --current "$work/runs/merged"; then
    pass "the merged folder equals the single run"
else
    fail "the merged folder differs from the single run"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
