#!/usr/bin/env bash
# Builds and runs Examples/CustomPolicy against this checkout *by version*, as a package
# depends on a published bgbench: a temporary clone of HEAD (committed work only), tagged
# with the version bgbench reports (BuildInfo.version), reached through a file:// URL.
# The example is built in debug (bgbench with it) and run; its output is checked.
# Usage: Examples/build.sh [--keep]   (--keep leaves the temporary folder and names it)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/.*static let version = "\(.*\)"/\1/p' "$root/Sources/BGBench/Reports/BuildInfo.swift")
[ -n "$version" ] || { echo "error: no version in Sources/BGBench/Reports/BuildInfo.swift" >&2; exit 1; }

scratch=$(mktemp -d)
if [ "${1:-}" = "--keep" ]; then echo "kept: $scratch"; else trap 'rm -rf "$scratch"' EXIT; fi
commit=$(git -C "$root" rev-parse HEAD)
# The clone's folder name is the package's name in the example's manifest (bgbench).
git clone -q --no-checkout "$root" "$scratch/bgbench"
git -C "$scratch/bgbench" checkout -q --detach "$commit"
git -C "$scratch/bgbench" tag -f "$version" "$commit" >/dev/null
# The example outside the checkout, so that its build leaves nothing in it.
cp -R "$root/Examples/CustomPolicy" "$scratch/CustomPolicy"

cd "$scratch/CustomPolicy"
export BGBENCH_URL="file://$scratch/bgbench"
swift build -q
output=$(swift run -q custom-policy "$scratch/frontier")
echo "$output"

# The dependency resolved to the tag, the registered policy ran as frontier arms, the
# matched-energy comparison was computed, and the folder is complete (run.json last).
resolved=$(python3 -c 'import json, sys; print([p["state"].get("version") for p in json.load(open(sys.argv[1]))["pins"]][0])' Package.resolved)
fail() { echo "error: Examples/build.sh: $1" >&2; exit 1; }
[ "$resolved" = "$version" ] || fail "bgbench resolved to '$resolved', expected version $version"
grep -q '^arms: .*aligned\[period=30m\]' <<<"$output" || fail "no aligned arms in the output"
grep -Eq '^aligned vs fixed at [0-9.]+ J/day: fresh-open rate [-+][0-9.]+ points \[[-+][0-9.]+, [-+][0-9.]+\] \(ok\)$' <<<"$output" \
    || fail "no matched-energy comparison of aligned with fixed in the output"
for file in frontier.csv frontier-matched.csv paired.csv run.json; do
    [ -s "$scratch/frontier/$file" ] || fail "the frontier folder has no $file"
done
echo "Examples/build.sh: CustomPolicy built against bgbench $version (file:// tag) and ran"
