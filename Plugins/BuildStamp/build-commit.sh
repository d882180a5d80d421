#!/bin/sh
# Writes OUT, a Swift file naming the commit the package folder ROOT holds:
#
#   build-commit.sh ROOT OUT      ->  let generatedCommit = "<name>"
#
# The name is ROOT's HEAD (40 hex digits), with `-dirty` when a tracked file differs from
# it, staged or not (as `git describe --dirty` says it; untracked files do not count).
# Without a git checkout at ROOT itself (a tarball, a copy without `.git`, a folder inside
# another repository) or without git, it is "unknown (why)": never a guess. OUT is
# rewritten only when its text changes, so a build with nothing new stays a no-op.
# Run by the BuildStamp plugin (BuildStamp.swift) before BGBuildStamp compiles.
root=$1 out=$2
if [ ! -e "$root/.git" ]; then
    commit='unknown (built outside a git checkout)'
elif ! command -v git >/dev/null 2>&1; then
    commit='unknown (git not found when built)'
elif head=$(git -C "$root" rev-parse --verify --quiet HEAD) \
    && changes=$(git -C "$root" --no-optional-locks status --porcelain --untracked-files=no); then
    commit=$head${changes:+-dirty}
else
    commit='unknown (git could not read the checkout when built)'
fi
printf '// Written by Plugins/BuildStamp/build-commit.sh when bgbench was built.\nlet generatedCommit = "%s"\n' "$commit" >"$out.new"
if cmp -s "$out.new" "$out"; then rm -f "$out.new"; else mv -f "$out.new" "$out"; fi
