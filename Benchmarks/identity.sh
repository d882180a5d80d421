#!/usr/bin/env bash
# The net under a refactor: runs every policy on every preset and platform, with every
# optional report file, and every kind of report folder (run, sweep, frontier, a run
# merged from shards, a check --update baseline), with the checkout's binary and with a
# base commit's binary, and compares every file of every report folder byte for byte. A refactor passes when
# nothing differs; a change that moves results fails here by design (it regenerates
# Benchmarks/baseline/ and says which numbers moved; see Benchmarks/README.md).
#
#   Benchmarks/identity.sh                        # against HEAD~1 (the commit before)
#   Benchmarks/identity.sh --base main            # against any commit
#   Benchmarks/identity.sh --base-binary OLD_EXE  # against a binary already built
#   Benchmarks/identity.sh --scenario-moved ...   # scenario.json and its hashes may differ
#   Benchmarks/identity.sh --keep DIR ...         # keep both sets of reports in DIR
#
# run.json is compared as JSON without its `execution` object (timing, threads, command
# line) and without the fields that name the build (`git_commit`, `bgbench_version`,
# `gsl`). With --scenario-moved, scenario.json and run.json's scenario hashes and resolved
# scenario are left out too: the one change allowed by the parameter registry (issue 10).
# Exit 0 when every file is identical, 1 when a file differs (each named), 2 on misuse.
set -euo pipefail

base=HEAD~1 base_binary= keep= scenario_moved=0 current_binary=
while [ $# -gt 0 ]; do
    case $1 in
        --base) base=${2:?--base needs a commit}; shift 2 ;;
        --base-binary) base_binary=${2:?--base-binary needs a path}; shift 2 ;;
        --binary) current_binary=${2:?--binary needs a path}; shift 2 ;;
        --keep) keep=${2:?--keep needs a folder}; shift 2 ;;
        --scenario-moved) scenario_moved=1; shift ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown option '$1' for Benchmarks/identity.sh" >&2; exit 2 ;;
    esac
done

top=$(cd "$(dirname "$0")/.." && pwd)
work=${keep:-$(mktemp -d)}
mkdir -p "$work"
cleanup() {
    [ -n "${worktree:-}" ] && git -C "$top" worktree remove --force "$worktree" 2>/dev/null || true
    [ -z "$keep" ] && rm -rf "$work"
}
trap cleanup EXIT

absolute() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }

if [ -z "$current_binary" ]; then
    (cd "$top" && swift build -c release >/dev/null)
    current_binary=$top/.build/release/bgbench
fi
current_binary=$(absolute "$current_binary")
if [ -z "$base_binary" ]; then
    worktree=$work/base-checkout
    git -C "$top" worktree add --detach --force "$worktree" "$base" >/dev/null 2>&1
    echo "building $base ($(git -C "$top" rev-parse --short "$base")) in $worktree" >&2
    (cd "$worktree" && swift build -c release >/dev/null)
    base_binary=$worktree/.build/release/bgbench
fi
base_binary=$(absolute "$base_binary")

# Every run: a name and its arguments. 200 devices (four blocks of 64, the last partial),
# 30 days, every optional file: devices.csv, paired.csv, replications.csv, events.csv, a
# warm-up. Each preset runs every policy; each platform runs every policy on the default
# scenario; the opens trace replays its 20 devices; a sweep crosses a policy and an
# environment parameter.
common=(--policy all --days 30 --devices 200 --per-device --baseline-policy fixed
        --replications 2 --trace-devices 2 --warmup-days 2 --seed 7 --quiet)
runs=()
for preset in "$top"/Datasets/scenarios/*.json; do
    runs+=("preset-$(basename "$preset" .json)|--scenario|Datasets/scenarios/$(basename "$preset")")
done
runs+=("platform-android|--set|platform.name=android-workmanager")
runs+=("platform-unrestricted|--set|platform.name=unrestricted|--set|platform.unrestricted.daily_cap=12")
runs+=("platform-ios-fetch|--set|platform.name=ios-fetch|--set|platform.ios_fetch.minimum_interval=15m")
runs+=("platform-legacy-mix|--set|population.legacy_ios_share=0.3|--set|platform.ios_fetch.minimum_interval=15m")
runs+=("routine-users|--set|population.model=routine")

run_all() {  # BINARY OUT
    local exe=$1 out=$2 spec name
    for spec in "${runs[@]}"; do
        IFS='|' read -r -a words <<<"$spec"
        name=${words[0]}
        (cd "$top" && "$exe" "${common[@]}" "${words[@]:1}" --out "$out/$name" >/dev/null)
    done
    (cd "$top" && "$exe" --opens-trace Datasets/traces/sample.csv --policy all --per-device \
        --baseline-policy fixed --trace-devices 2 --seed 7 --quiet --out "$out/trace" >/dev/null)
    (cd "$top" && "$exe" sweep --policy fixed,adaptive --set policies.fixed.interval=15m,1h \
        --set population.bar_off_share=0,0.5 --days 30 --devices 200 --seed 7 --quiet \
        --out "$out/sweep" >/dev/null)
    # The other folder kinds: a frontier, a run merged from its shards (the shard folders
    # stay outside the compared tree: their shard.state names the host and the build),
    # and a baseline folder written by check --update from a folder of report folders.
    (cd "$top" && "$exe" frontier --policy fixed,adaptive,kde --replications 2 --days 20 --devices 200 --seed 7 \
        --quiet --out "$out/frontier" >/dev/null)
    local shard
    for shard in 0 1 2; do
        (cd "$top" && "$exe" "${common[@]}" --shard "$shard/3" --out "$out.shards/$shard" >/dev/null)
    done
    (cd "$top" && "$exe" merge --out "$out/merged" "$out.shards" >/dev/null)
    mkdir -p "$out.current"
    cp -r "$out/routine-users" "$out/platform-android" "$out.current/"
    (cd "$top" && "$exe" check --update --baseline "$out/updated" --current "$out.current" >/dev/null)
}

echo "running with the base binary ($base_binary)" >&2
run_all "$base_binary" "$work/base"
echo "running with the current binary ($current_binary)" >&2
run_all "$current_binary" "$work/current"

python3 - "$work/base" "$work/current" "$scenario_moved" <<'EOF'
import json, os, sys
base, current, scenario_moved = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
build_fields = {"execution", "git_commit", "bgbench_version", "gsl"}
scenario_fields = {"resolved_scenario", "resolved_scenario_sha256", "scenario_sha256"}

def files(root):
    # Dot names beside a report folder are bgbench's bookkeeping (its lock file), not reports.
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs
                  if not f.startswith("."))

def run_json(path):
    with open(path) as f:
        doc = json.load(f)
    def strip(node):
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items()
                    if k not in build_fields and not (scenario_moved and k in scenario_fields)}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node
    return strip(doc)

a, b = files(base), files(current)
problems = [f"only in the base run: {p}" for p in sorted(set(a) - set(b))]
problems += [f"only in the current run: {p}" for p in sorted(set(b) - set(a))]
compared = 0
for rel in sorted(set(a) & set(b)):
    name = os.path.basename(rel)
    if scenario_moved and name == "scenario.json":
        continue
    compared += 1
    pa, pb = os.path.join(base, rel), os.path.join(current, rel)
    if name == "run.json":
        if run_json(pa) != run_json(pb):
            problems.append(f"differs: {rel} (outside execution and the build fields)")
        continue
    with open(pa, "rb") as fa, open(pb, "rb") as fb:
        da, db = fa.read(), fb.read()
    if da != db:
        line = next((i + 1 for i, (x, y) in enumerate(zip(da.split(b"\n"), db.split(b"\n"))) if x != y),
                    min(da.count(b"\n"), db.count(b"\n")) + 1)
        problems.append(f"differs: {rel} (first at line {line}; {len(da)} vs {len(db)} bytes)")
for p in problems:
    print(p)
folders = len({os.path.dirname(p) for p in a})
print(f"{compared} files in {folders} report folders compared: "
      + ("identical" if not problems else f"{len(problems)} differ"))
sys.exit(1 if problems else 0)
EOF
